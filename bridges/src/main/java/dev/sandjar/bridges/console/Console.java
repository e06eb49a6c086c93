package dev.sandjar.bridges.console;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;

/**
 * {@code console.log}, {@code info}, {@code warn}, {@code error} and {@code debug}: each call
 * becomes one line of the run's log, at its level. The guest half formats the arguments the way
 * Node's {@code util.inspect} does; the host half caps the line at {@link #MAX_LINE_CHARS} and
 * files it under the run's log caps ({@code logLines}, {@code logChars}). A caller sees lines live
 * through {@code RunRequest.Builder.onLog}. See {@code docs/bridges.md}.
 */
public final class Console {
    /** The longest line kept, in UTF-16 units; the rest is replaced by a marker with its count. */
    public static final int MAX_LINE_CHARS = 64 * 1024;

    private static final Bridge BRIDGE =
            Bridge.builder("console")
                    .guest(GuestScripts.load(Console.class, "console.js"))
                    .operation(
                            Operation.builder("log")
                                    .param(Param.string("level").maxLength(5))
                                    .param(Param.string("message"))
                                    .handler(Console::log)
                                    .build())
                    .build();

    private Console() {}

    /** The console bridge; one immutable instance serves every run. */
    public static Bridge bridge() {
        return BRIDGE;
    }

    private static Object log(OperationCall call) {
        LogEntry.Level level =
                switch (call.string(0)) {
                    case "log" -> LogEntry.Level.LOG;
                    case "info" -> LogEntry.Level.INFO;
                    case "warn" -> LogEntry.Level.WARN;
                    case "error" -> LogEntry.Level.ERROR;
                    case "debug" -> LogEntry.Level.DEBUG;
                    default ->
                            throw new BridgeException(
                                    "TypeError",
                                    "INVALID_ARGUMENT",
                                    call.where() + ": unknown level '" + call.string(0) + "'");
                };
        call.session().log(level, capped(call.string(1)));
        return null;
    }

    /** {@code line}, cut at {@link #MAX_LINE_CHARS} without splitting a surrogate pair. */
    static String capped(String line) {
        if (line.length() <= MAX_LINE_CHARS) {
            return line;
        }
        int cut = MAX_LINE_CHARS;
        if (Character.isHighSurrogate(line.charAt(cut - 1))
                && Character.isLowSurrogate(line.charAt(cut))) {
            cut--;
        }
        return line.substring(0, cut) + "... (" + (line.length() - cut) + " more characters)";
    }
}
