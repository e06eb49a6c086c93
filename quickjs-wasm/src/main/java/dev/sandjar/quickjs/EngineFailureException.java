package dev.sandjar.quickjs;

/**
 * The engine instance failed below JavaScript: a WebAssembly trap, an {@code abort()} or failed
 * assertion inside QuickJS, a JVM stack overflow, or a host callback that could not complete. The
 * instance is marked broken and every further call on it throws this; a pool replaces it.
 */
public final class EngineFailureException extends QuickJsException {
    private static final long serialVersionUID = 1L;

    EngineFailureException(String message, Throwable cause) {
        super(message, cause);
    }

    EngineFailureException(String message) {
        super(message);
    }
}
