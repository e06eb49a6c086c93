package dev.sandjar.host;

/** A run failed and the caller asked for its value anyway ({@link RunResult#valueOrThrow()}). */
public final class SandboxException extends SandjarException {
    private static final long serialVersionUID = 1L;
    private final transient RunError error;

    public SandboxException(RunError error) {
        super(error.kind() + ": " + error + (error.stack().isEmpty() ? "" : "\n" + error.stack()));
        this.error = error;
    }

    public RunError error() {
        return error;
    }
}
