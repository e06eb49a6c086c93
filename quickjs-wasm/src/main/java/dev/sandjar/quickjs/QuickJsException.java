package dev.sandjar.quickjs;

/**
 * The root of every exception this package throws. Callers branch on the subclasses: {@link
 * JsException} (the guest threw), {@link EngineFailureException} (the engine instance trapped and
 * was discarded), {@link JsMemoryException} (the host could not allocate guest memory).
 */
public class QuickJsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    QuickJsException(String message) {
        super(message);
    }

    QuickJsException(String message, Throwable cause) {
        super(message, cause);
    }
}
