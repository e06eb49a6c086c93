package dev.sandjar.host.script;

import dev.sandjar.host.RunError;
import java.util.Locale;
import javax.script.ScriptException;

/**
 * A run that failed, as JSR-223 reports it: the message is {@code <kind>: <JS name>: <message>}
 * (the kind in lower case, as {@code ./sandjar run} prints it: {@code syntax}, {@code exception},
 * {@code timeout}, {@code memory}, ...), the file name, line and column are the user's code's (-1
 * when unknown), and {@link #error()} is the whole {@link RunError}, the guest's JavaScript stack
 * included. When the run itself failed (not a compile-time syntax check), the cause is the
 * exception the host API throws for it ({@link dev.sandjar.host.RunResult#valueOrThrow()}).
 */
public final class SandjarScriptException extends ScriptException {
    private static final long serialVersionUID = 1L;

    private final transient RunError error;

    SandjarScriptException(RunError error, String fileName) {
        super(
                error.kind().name().toLowerCase(Locale.ROOT) + ": " + error,
                fileName,
                error.line() > 0 ? error.line() : -1,
                error.column() > 0 ? error.column() : -1);
        this.error = error;
    }

    /** Why the run failed: kind, JS name, message, stack, line and column. */
    public RunError error() {
        return error;
    }
}
