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
 * Node's {@code util.inspect} does and sends at most {@link #MAX_LINE_CHARS} and one more character
 * of it with its full length; the host half caps the line at {@link #MAX_LINE_CHARS}, and files it
 * under the run's log caps ({@code logLines}, {@code logChars}). A caller sees lines live through
 * {@code RunRequest.Builder.onLog}. See {@code docs/bridges.md}.
 */
public final class Console {
    /** The longest line kept, in UTF-16 units; the rest is replaced by a marker with its count. */
    public static final int MAX_LINE_CHARS = 64 * 1024;

    /**
     * A line crosses in pieces this long (see console.js): enough of them for {@link
     * #MAX_LINE_CHARS} and one more character.
     */
    static final int PIECE_CHARS = 8192;

    static final int MAX_PIECES = MAX_LINE_CHARS / PIECE_CHARS + 1;

    private static final Bridge BRIDGE =
            Bridge.builder("console")
                    .guest(GuestScripts.load(Console.class, "console.js"))
                    .operation(
                            Operation.builder("log")
                                    .param(Param.string("level").maxLength(5))
                                    .param(Param.array("pieces").maxLength(MAX_PIECES))
                                    .param(Param.integer("length").range(0, Integer.MAX_VALUE))
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
                            throw BridgeException.invalidArgument(
                                    call.where() + ": unknown level '" + call.string(0) + "'");
                };
        StringBuilder kept = new StringBuilder();
        for (Object piece : call.array(1)) {
            if (!(piece instanceof String s) || s.length() > PIECE_CHARS) {
                throw BridgeException.invalidArgument(
                        call.where() + ": each piece must be a string of at most " + PIECE_CHARS);
            }
            kept.append(s);
        }
        long length = Math.max(call.integer(2, 0), kept.length());
        call.session().log(level, capped(kept, length));
        return null;
    }

    /**
     * The line whose first characters are {@code kept} and whose full length is {@code length}, cut
     * at {@link #MAX_LINE_CHARS} without splitting a surrogate pair.
     */
    static String capped(CharSequence kept, long length) {
        if (length <= MAX_LINE_CHARS && kept.length() == length) {
            return kept.toString();
        }
        int cut = Math.min(MAX_LINE_CHARS, kept.length());
        if (cut < kept.length()
                && Character.isHighSurrogate(kept.charAt(cut - 1))
                && Character.isLowSurrogate(kept.charAt(cut))) {
            cut--;
        }
        return kept.subSequence(0, cut) + "... (" + (length - cut) + " more characters)";
    }
}
