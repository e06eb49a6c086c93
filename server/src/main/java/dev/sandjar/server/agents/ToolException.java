package dev.sandjar.server.agents;

import dev.sandjar.host.BridgeException;

/**
 * A tool call that failed, as the guest sees it: an {@code Error} named {@code ToolError} with
 * {@link #code()} and the message. A handler may throw it to choose the code.
 */
public class ToolException extends BridgeException {
    private static final long serialVersionUID = 1L;

    /** The arguments do not match the tool's schema; the handler did not run. */
    public static final String INVALID_ARGUMENTS = "INVALID_ARGUMENTS";

    /** The tool returned {@code {"error": ...}}. */
    public static final String TOOL_ERROR = "TOOL_ERROR";

    /** The tool's handler threw or its stage failed. */
    public static final String TOOL_FAILED = "TOOL_FAILED";

    /** The action made more tool calls than its cap allows. */
    public static final String TOOL_CALL_LIMIT = "TOOL_CALL_LIMIT";

    /** A restricted tool was called by code that is not authorized, and no one could approve. */
    public static final String REQUIRES_AUTHORIZED_CODE = "REQUIRES_AUTHORIZED_CODE";

    /** A restricted tool was called by unauthorized code and the approval was refused. */
    public static final String DENIED = "DENIED";

    /** The tool does not exist or is disabled; nothing reached the host. */
    public static final String NOT_FOUND = "NOT_FOUND";

    public ToolException(String code, String message) {
        super("ToolError", code, message);
    }

    public ToolException(String code, String message, Throwable cause) {
        super("ToolError", code, message, cause);
    }
}
