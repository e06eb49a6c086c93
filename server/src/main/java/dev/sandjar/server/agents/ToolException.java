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

    public ToolException(String code, String message) {
        super("ToolError", code, message);
    }

    public ToolException(String code, String message, Throwable cause) {
        super("ToolError", code, message, cause);
    }
}
