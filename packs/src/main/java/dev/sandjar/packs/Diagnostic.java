package dev.sandjar.packs;

import java.util.Objects;

/**
 * One finding about a pack: why something was refused (an {@link Severity#ERROR}, which withholds
 * the modules it touches) or something worth fixing that withholds nothing (a {@link
 * Severity#WARNING}). Discovery never throws for what a pack contains; every refusal is one of
 * these.
 *
 * @param severity whether a module was withheld
 * @param code a stable machine code, for example {@code manifest-bad-name} or {@code wasm-import}
 *     (docs/packs.md lists them)
 * @param pack the package name, or the pack's directory relative to its search path when the
 *     manifest does not name one
 * @param where what the finding is about: a manifest field ({@code
 *     sandjar.sandboxModules[1].name}), a pack-relative file with an optional {@code :line:column},
 *     or empty for the whole pack
 * @param message what is wrong, naming the value and the bound
 */
public record Diagnostic(
        Severity severity, String code, String pack, String where, String message) {
    public enum Severity {
        ERROR,
        WARNING
    }

    public Diagnostic {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(pack, "pack");
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(message, "message");
    }

    static Diagnostic error(String code, String pack, String where, String message) {
        return new Diagnostic(Severity.ERROR, code, pack, where, message);
    }

    static Diagnostic warning(String code, String pack, String where, String message) {
        return new Diagnostic(Severity.WARNING, code, pack, where, message);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** {@code error [code] pack where: message}, one line. */
    @Override
    public String toString() {
        return severity.name().toLowerCase(java.util.Locale.ROOT)
                + " ["
                + code
                + "] "
                + pack
                + (where.isEmpty() ? "" : " " + where)
                + ": "
                + message;
    }
}
