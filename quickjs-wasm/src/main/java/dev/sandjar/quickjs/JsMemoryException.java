package dev.sandjar.quickjs;

/**
 * The host could not allocate guest memory for a value it was moving into the guest: the guest's
 * WebAssembly memory is at its maximum. The engine stays usable; free values or raise the limit.
 */
public final class JsMemoryException extends QuickJsException {
    private static final long serialVersionUID = 1L;

    JsMemoryException(String message) {
        super(message);
    }
}
