package dev.sandjar.host;

import dev.sandjar.quickjs.JsError;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what the guest threw into a {@link RunError}: its kind, the limit named in the message when
 * a limit was hit, the stack without the sandbox's own frames, and positions in the user's file
 * mapped back to the user's own lines and columns. A pure function of its inputs: it knows nothing
 * of engines or runs, so it is tested on plain values.
 */
final class ErrorClassifier {
    private static final Pattern POSITION = Pattern.compile(":(\\d+):(\\d+)");

    private final String filename;
    private final int line1Shift;
    private final int userLines;
    private final long heapBytes;
    private final long stackBytes;

    /**
     * @param filename the user's file, as it appears in stack frames
     * @param line1Shift columns the entry wrapper moved line 1 to the right (its prefix and the
     *     rebuilt imports); subtracted from columns on line 1
     * @param userLines lines of the user's code: frames of the user's file past them are the
     *     wrapper's own call and are dropped; {@link Integer#MAX_VALUE} keeps every frame
     * @param heapBytes the run's heap limit, named in out-of-memory messages
     * @param stackBytes the run's stack limit, named in stack overflow messages
     */
    ErrorClassifier(
            String filename, int line1Shift, int userLines, long heapBytes, long stackBytes) {
        this.filename = filename;
        this.line1Shift = line1Shift;
        this.userLines = userLines;
        this.heapBytes = heapBytes;
        this.stackBytes = stackBytes;
    }

    /**
     * Maps a guest error to a run error.
     *
     * @param compiling the error came from compiling the entry (a {@code SyntaxError} there is
     *     {@link RunError.Kind#SYNTAX}; elsewhere a thrown one is an exception like any other)
     * @param stoppedBy the error of the budget that stopped the run (timeout, cancellation), or
     *     null; an interrupted guest reports it instead of QuickJS's {@code interrupted}
     * @param growthRefused whether the engine refused to grow its memory during this run
     */
    RunError classify(JsError e, boolean compiling, RunError stoppedBy, boolean growthRefused) {
        if (e.isInterrupted() && stoppedBy != null) {
            return stoppedBy;
        }
        if (growthRefused && isBareNull(e)) {
            return RunError.of(
                    RunError.Kind.MEMORY,
                    "InternalError",
                    "out of memory: the heap was too full for the engine to make its error object"
                            + " (the guest heap limit, heapBytes, is "
                            + heapBytes
                            + ")");
        }
        if (e.isOutOfMemory()) {
            return withPosition(
                    RunError.Kind.MEMORY,
                    e.name(),
                    e.message() + " (the guest heap limit, heapBytes, is " + heapBytes + ")",
                    e.stack());
        }
        if (e.isStackOverflow()) {
            return withPosition(
                    RunError.Kind.STACK,
                    e.name(),
                    e.message() + " (the stack limit, stackBytes, is " + stackBytes + ")",
                    e.stack());
        }
        if (e.name().equals("ReferenceError") && e.message().startsWith("cannot import")) {
            return withPosition(RunError.Kind.IMPORT, e.name(), e.message(), e.stack());
        }
        if (compiling && e.name().equals("SyntaxError")) {
            return withPosition(RunError.Kind.SYNTAX, e.name(), e.message(), e.stack());
        }
        RunError notAnError = notAnError(e);
        if (notAnError != null) {
            return notAnError;
        }
        return withPosition(RunError.Kind.EXCEPTION, e.name(), e.message(), e.stack());
    }

    /**
     * A thrown value that is not an object said plainly: the name is its type ({@code string},
     * {@code number}, {@code null}, ...) and the message says so and quotes it. An object the
     * engine could not name (no {@code name}, no {@code message}, no class the prelude found) is
     * {@code object}. Values that carry no stack are all the engine gives as such.
     */
    private RunError notAnError(JsError e) {
        if (!e.stack().isEmpty()) {
            return null;
        }
        String message =
                switch (e.name()) {
                    case "string", "number", "bigint", "boolean", "symbol" ->
                            "a " + e.name() + " was thrown, not an Error: " + e.message();
                    case "undefined" -> "undefined was thrown, not an Error";
                    case "function" -> "a function was thrown, not an Error";
                    case "object" ->
                            e.message().equals("null")
                                    ? "null was thrown, not an Error"
                                    : "an object that is not an Error was thrown: " + e.message();
                    default -> null;
                };
        if (message == null) {
            return null;
        }
        String name = e.name().equals("object") && e.message().equals("null") ? "null" : e.name();
        return new RunError(RunError.Kind.EXCEPTION, name, message, "", 0, 0);
    }

    /**
     * A heap so full that QuickJS could not even allocate its out-of-memory error throws a bare
     * null; it is the heap's doing when the engine refused to grow during the run.
     */
    static boolean isBareNull(JsError e) {
        return e.name().equals("object") && e.message().equals("null");
    }

    /**
     * An error whose stack positions in the user's file are mapped back to the user's own columns
     * (line 1 moved right by the wrapper), with the first such position as line and column.
     */
    RunError withPosition(RunError.Kind kind, String name, String message, String stack) {
        stack = userFrames(stack);
        Matcher m = Pattern.compile(Pattern.quote(filename) + POSITION.pattern()).matcher(stack);
        StringBuilder mapped = new StringBuilder();
        int line = 0;
        int column = 0;
        while (m.find()) {
            int l = Integer.parseInt(m.group(1));
            int c = Integer.parseInt(m.group(2));
            if (l == 1) {
                c = Math.max(1, c - line1Shift);
            }
            if (line == 0) {
                line = l;
                column = c;
            }
            m.appendReplacement(mapped, Matcher.quoteReplacement(filename + ":" + l + ":" + c));
        }
        m.appendTail(mapped);
        return new RunError(kind, name, message, mapped.toString(), line, column);
    }

    /**
     * The stack without the sandbox's own frames: the prelude and codec ({@code sandjar:} files)
     * and the wrapper's call of the user's function (past the user's last line).
     */
    String userFrames(String stack) {
        if (stack.isEmpty()) {
            return stack;
        }
        Pattern own = Pattern.compile("\\(?" + Pattern.quote(filename) + ":(\\d+):\\d+\\)?\\s*$");
        StringBuilder out = new StringBuilder();
        for (String frame : stack.split("\n")) {
            if (frame.contains("sandjar:")) {
                continue;
            }
            Matcher m = own.matcher(frame);
            if (m.find() && Integer.parseInt(m.group(1)) > userLines) {
                continue;
            }
            out.append(frame).append('\n');
        }
        return out.toString();
    }
}
