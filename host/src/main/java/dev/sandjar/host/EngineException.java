package dev.sandjar.host;

/**
 * The sandbox could not serve the call: it is closed, it was called from an engine thread (where
 * waiting for a run can deadlock the pool), or the engine failed to start or serve. Not the guest's
 * doing and not the request's: a service answers it as its own failure.
 */
public class EngineException extends SandjarException {
    private static final long serialVersionUID = 1L;

    public EngineException(String message) {
        super(message);
    }

    public EngineException(String message, Throwable cause) {
        super(message, cause);
    }
}
