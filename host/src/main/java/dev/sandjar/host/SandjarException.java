package dev.sandjar.host;

/**
 * The root of everything Sandjar throws at a caller. Unchecked; callers branch on the few
 * subclasses that call for different handling:
 *
 * <ul>
 *   <li>{@link InvalidRequestException}: the caller's input is wrong (a value out of its bound, a
 *       reserved name, code over its size limit, a global with no JavaScript form). Fix the input;
 *       retrying as is fails the same way. An HTTP surface answers 400.
 *   <li>{@link RefusedException}: a module, pack or capability was refused or is not there. An HTTP
 *       surface answers 403 or 404.
 *   <li>{@link BridgeException}: a capability failed inside a run, in a way the guest sees as an
 *       {@code Error} with a stable {@code name} and {@code code}.
 *   <li>{@link EngineException}: the sandbox could not serve the call: it is closed, it was called
 *       from a thread where waiting would deadlock, or the engine itself failed. An HTTP surface
 *       answers 5xx.
 *   <li>{@link SandboxException}: a run failed and its value was asked for anyway; its {@link
 *       RunError} keeps the guest's JavaScript name, message and stack.
 * </ul>
 *
 * Capabilities with their own codes (the workspace's and fetch's Java APIs) extend the root
 * directly. Everything a run's guest code does is a {@link RunResult}, never an exception.
 */
public class SandjarException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SandjarException(String message) {
        super(message);
    }

    public SandjarException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * For control-flow failures (a cancellation, a timeout) whose Java stack says nothing the
     * message does not: {@code writableStackTrace} false skips {@code fillInStackTrace}.
     */
    protected SandjarException(String message, Throwable cause, boolean writableStackTrace) {
        super(message, cause, true, writableStackTrace);
    }
}
