package dev.sandjar.bridges.node;

import java.util.Objects;

/**
 * One finding of {@link NodeValidator} about a Code-node body (docs/code-node-validation.md has the
 * table of codes).
 *
 * @param code what is wrong, stable across releases (kebab-case; the constants below): callers
 *     branch on it, never on the message
 * @param severity fixed per code: an error means the body fails (or is refused) when it runs, a
 *     warning that it runs but probably not as meant
 * @param message what is wrong and what to do about it
 * @param line 1-based; 0 when the finding is about the body as a whole
 * @param column 1-based; 0 when the finding is about the body as a whole
 */
public record NodeDiagnostic(String code, Severity severity, String message, int line, int column) {

    /** The code does not parse. */
    public static final String SYNTAX_ERROR = "syntax-error";

    /** A top-level {@code export}: a node body is a function body, not a module. */
    public static final String TOP_LEVEL_EXPORT = "top-level-export";

    /** A static import that no installed pack serves. */
    public static final String UNRESOLVED_IMPORT = "unresolved-import";

    /** A dynamic {@code import()}, which the sandbox refuses. */
    public static final String DYNAMIC_IMPORT = "dynamic-import";

    /** A call of {@code require(...)}, which does not exist in the sandbox. */
    public static final String REQUIRE_CALL = "require-call";

    /** A declared input read as a bare name instead of {@code inputs.<name>}. */
    public static final String INPUT_AS_GLOBAL = "input-as-global";

    /** A name that is neither a sandbox global nor declared by the code. */
    public static final String UNDEFINED_NAME = "undefined-name";

    /** {@code inputs.<name>} of an input the node does not declare. */
    public static final String UNDECLARED_INPUT = "undeclared-input";

    /** {@code inputs.<name>} of a streamed input in a body that reads streams. */
    public static final String STREAMED_INPUT_ON_INPUTS = "streamed-input-on-inputs";

    /**
     * {@code stream(name)}, {@code stream.first(name)} or {@code stream.open(name)} of an input the
     * node does not declare.
     */
    public static final String UNDECLARED_STREAM = "undeclared-stream";

    /** {@code emit} or {@code output} of a handle the node does not declare. */
    public static final String UNDECLARED_OUTPUT = "undeclared-output";

    /** A declared output handle that no reachable {@code emit} or {@code output} call writes. */
    public static final String UNWRITTEN_OUTPUT = "unwritten-output";

    /** A body that calls neither {@code emit} nor {@code output}: the deprecated contract. */
    public static final String LEGACY_BODY = "legacy-body";

    /** The code nests too deeply for the scope walk: names were not checked. */
    public static final String NOT_ANALYZED = "not-analyzed";

    public enum Severity {
        ERROR,
        WARNING
    }

    public NodeDiagnostic {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        if (line < 0 || column < 0) {
            throw new IllegalArgumentException(
                    "line (" + line + ") and column (" + column + ") must be >= 0");
        }
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** {@code LINE:COL CODE message}, the command line's text output. */
    @Override
    public String toString() {
        return line + ":" + column + " " + code + " " + message;
    }
}
