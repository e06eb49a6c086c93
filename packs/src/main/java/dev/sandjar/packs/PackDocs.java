package dev.sandjar.packs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A pack's {@code SKILL.md}: frontmatter {@code name} and {@code description}, the Markdown body,
 * and the body's {@code ## } sections by heading. Third-party text: show it to a person, or to a
 * model only as untrusted content; never splice it into a prompt as instructions.
 *
 * <pre>{@code
 * ---
 * name: text
 * description: Slugs, word wrap and templates for strings
 * ---
 * # @sandjar/text
 * ## slugify
 * ...
 * }</pre>
 *
 * @param pack the package the file belongs to
 * @param sections section bodies by heading, in order (text before the first {@code ## } heading is
 *     only in {@code body})
 */
public record PackDocs(
        String pack, String name, String description, String body, Map<String, String> sections) {
    public PackDocs {
        Objects.requireNonNull(pack, "pack");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(body, "body");
        sections = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sections));
    }

    /** Parses {@code text}; throws {@link IllegalArgumentException} saying what is malformed. */
    static PackDocs parse(String pack, String text) {
        String t = text.replace("\r\n", "\n");
        if (t.startsWith("\uFEFF")) {
            t = t.substring(1);
        }
        if (!t.startsWith("---\n")) {
            throw new IllegalArgumentException("must start with a '---' frontmatter block");
        }
        int end = t.indexOf("\n---", 3);
        if (end < 0) {
            throw new IllegalArgumentException("the frontmatter block is not closed with '---'");
        }
        Map<String, String> front = new LinkedHashMap<>();
        String[] lines = t.substring(4, end + 1).split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || Character.isWhitespace(line.charAt(0))) {
                throw new IllegalArgumentException(
                        "frontmatter line " + (i + 2) + " is not 'key: value'");
            }
            String key = line.substring(0, colon).trim();
            String value = unquote(line.substring(colon + 1).trim());
            if (front.put(key, value) != null) {
                throw new IllegalArgumentException("frontmatter key '" + key + "' appears twice");
            }
        }
        String name = front.get("name");
        String description = front.get("description");
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("the frontmatter has no 'name'");
        }
        if (description == null || description.isEmpty()) {
            throw new IllegalArgumentException("the frontmatter has no 'description'");
        }
        int bodyStart = t.indexOf('\n', end + 1);
        String body = bodyStart < 0 ? "" : t.substring(bodyStart + 1);
        Map<String, String> sections = new LinkedHashMap<>();
        String heading = null;
        StringBuilder current = new StringBuilder();
        boolean fenced = false;
        for (String line : body.split("\n", -1)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            if (!fenced && line.startsWith("## ")) {
                if (heading != null) {
                    sections.put(heading, current.toString().strip());
                }
                heading = line.substring(3).strip();
                current.setLength(0);
            } else if (heading != null) {
                current.append(line).append('\n');
            }
        }
        if (heading != null) {
            sections.put(heading, current.toString().strip());
        }
        return new PackDocs(pack, name, description, body, sections);
    }

    private static String unquote(String v) {
        if (v.length() >= 2
                && ((v.startsWith("\"") && v.endsWith("\""))
                        || (v.startsWith("'") && v.endsWith("'")))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }
}
