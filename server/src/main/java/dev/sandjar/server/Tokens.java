package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tokens a server accepts, each a name, the SHA-256 of the token and a {@link Policy}. The
 * token file holds hashes, never tokens:
 *
 * <pre>{@code
 * {"tokens": [{"name": "ci", "sha256": "<hex SHA-256 of the token>",
 *              "policy": {"capabilities": ["console", "fetch"], "maxTimeoutMs": 5000}}]}
 * }</pre>
 *
 * <p>Fields a policy leaves out take the server's base policy (the default capabilities, no
 * secrets, the server's ceilings, every pack, every admission slot). Immutable and thread-safe.
 */
public final class Tokens {
    /** A token's name: what logs and metrics show in its place. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{64}");

    /** One accepted token. */
    public record Token(String name, byte[] sha256, Policy policy) {
        public Token {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "token name '" + name + "' must match " + NAME.pattern());
            }
            if (sha256.length != 32) {
                throw new IllegalArgumentException("token '" + name + "': sha256 must be 32 bytes");
            }
            sha256 = sha256.clone();
        }

        @Override
        public byte[] sha256() {
            return sha256.clone();
        }
    }

    private final List<Token> tokens;

    private Tokens(List<Token> tokens) {
        this.tokens = List.copyOf(tokens);
    }

    public static Tokens of(List<Token> tokens) {
        Set<String> names = new LinkedHashSet<>();
        for (Token t : tokens) {
            if (!names.add(t.name())) {
                throw new IllegalArgumentException("token name '" + t.name() + "' appears twice");
            }
        }
        return new Tokens(tokens);
    }

    /** An entry for {@code token} (the secret itself), hashed here. */
    public static Token token(String name, String token, Policy policy) {
        return new Token(name, sha256(token), policy);
    }

    /**
     * Reads a token file.
     *
     * @param base the policy whose values a token's policy falls back on and may not exceed
     * @throws IllegalArgumentException naming the file, the entry and what is wrong with it
     */
    public static Tokens load(Path file, Policy base) throws IOException {
        return load(file, base, 1);
    }

    /**
     * Reads a token file for a server of {@code poolSize} engines. With two or more tokens and two
     * or more engines, a token whose policy does not name {@code maxConcurrentRuns} may have at
     * most {@code poolSize - 1} runs at once: no single tenant holds every engine, so another
     * tenant's run never waits behind its work (issue 34's noisy neighbour). One token keeps every
     * slot.
     */
    public static Tokens load(Path file, Policy base, int poolSize) throws IOException {
        JsonNode root;
        try {
            root = RunBody.JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": not valid JSON: " + RunBody.problem(e), e);
        }
        if (root == null || !root.isObject() || !root.path("tokens").isArray()) {
            throw new IllegalArgumentException(file + ": expected {\"tokens\": [...]}");
        }
        unknownFields(root, Set.of("tokens"), file + "");
        List<Token> out = new ArrayList<>();
        List<Integer> sharedDefault = new ArrayList<>();
        int i = 0;
        for (JsonNode t : root.get("tokens")) {
            String where = file + ": tokens[" + i++ + "]";
            if (!t.isObject()) {
                throw new IllegalArgumentException(where + ": must be an object");
            }
            unknownFields(t, Set.of("name", "sha256", "policy"), where);
            String name = t.path("name").asText("");
            String hex = t.path("sha256").asText("");
            if (!HEX.matcher(hex).matches()) {
                throw new IllegalArgumentException(
                        where + ": sha256 must be 64 hex digits (the SHA-256 of the token)");
            }
            try {
                out.add(
                        new Token(
                                name,
                                HexFormat.of().parseHex(hex.toLowerCase(java.util.Locale.ROOT)),
                                Policy.fromJson(t.get("policy"), base, "policy")));
                if (!t.path("policy").has("maxConcurrentRuns")) {
                    sharedDefault.add(out.size() - 1);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        if (out.size() >= 2 && poolSize >= 2) {
            for (int k : sharedDefault) {
                Token t = out.get(k);
                int share = Math.min(t.policy().maxConcurrentRuns(), poolSize - 1);
                out.set(
                        k,
                        new Token(t.name(), t.sha256(), t.policy().withMaxConcurrentRuns(share)));
            }
        }
        try {
            return of(out);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static void unknownFields(JsonNode node, Set<String> known, String where) {
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String f = field.getKey();
            if (!known.contains(f)) {
                throw new IllegalArgumentException(
                        where
                                + ": unknown field '"
                                + f
                                + "'; the fields are "
                                + Policy.sorted(known));
            }
        }
    }

    /**
     * The entry whose hash matches the presented token's. Every entry is compared, each in constant
     * time, so the time taken says nothing about which entry (if any) matched.
     */
    public Optional<Token> find(String presented) {
        byte[] hash = sha256(presented);
        Token match = null;
        for (Token t : tokens) {
            if (MessageDigest.isEqual(hash, t.sha256) && match == null) {
                match = t;
            }
        }
        return Optional.ofNullable(match);
    }

    public List<Token> all() {
        return tokens;
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }
}
