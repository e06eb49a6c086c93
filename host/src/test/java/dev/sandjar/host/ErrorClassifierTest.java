package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.JsError;
import org.junit.jupiter.api.Test;

/** {@link ErrorClassifier} on plain values: no engine, no run. */
class ErrorClassifierTest {
    private static final long HEAP = 64L << 20;
    private static final long STACK = 512L << 10;

    /** The unparsed wrapper: line 1 moved right by 35 columns, the user's code is 3 lines. */
    private static final ErrorClassifier WRAPPED =
            new ErrorClassifier("main.js", 35, 3, HEAP, STACK);

    /** Code that ran as the module it is: nothing shifted, every line the user's. */
    private static final ErrorClassifier MODULE =
            new ErrorClassifier("main.js", 0, Integer.MAX_VALUE, HEAP, STACK);

    private static RunError classify(ErrorClassifier c, JsError e) {
        return c.classify(e, false, null, false);
    }

    @Test
    void aThrownErrorIsAnExceptionAtTheUsersFirstFrame() {
        JsError e =
                new JsError(
                        "TypeError",
                        "x is not a function",
                        "    at f (main.js:2:7)\n    at <anonymous> (main.js:3:1)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals(RunError.Kind.EXCEPTION, r.kind());
        assertEquals("TypeError", r.name());
        assertEquals("x is not a function", r.message());
        assertEquals(2, r.line());
        assertEquals(7, r.column());
        assertEquals("    at f (main.js:2:7)\n    at <anonymous> (main.js:3:1)\n", r.stack());
    }

    @Test
    void columnsOnLineOneLoseTheWrappersShiftAndNeverDropBelowOne() {
        JsError e =
                new JsError(
                        "Error",
                        "boom",
                        "    at <anonymous> (main.js:1:46)\n    at g (main.js:1:10)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals(1, r.line());
        assertEquals(11, r.column());
        assertEquals("    at <anonymous> (main.js:1:11)\n    at g (main.js:1:1)\n", r.stack());
        assertEquals(46, classify(MODULE, e).column(), "a module's columns are its own");
    }

    @Test
    void theSandboxsOwnFramesAreRemoved() {
        JsError e =
                new JsError(
                        "Error",
                        "boom",
                        "    at f (main.js:2:3)\n"
                                + "    at encode (sandjar:codec.js:10:5)\n"
                                + "    at <anonymous> (main.js:3:9)\n"
                                + "    at <anonymous> (main.js:4:2)\n"
                                + "    at install (sandjar:prelude.js:40:1)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals(
                "    at f (main.js:2:3)\n    at <anonymous> (main.js:3:9)\n",
                r.stack(),
                "sandjar: frames and the wrapper's call past the user's last line are gone");
        assertEquals(
                "    at f (main.js:2:3)\n    at <anonymous> (main.js:3:9)\n"
                        + "    at <anonymous> (main.js:4:2)\n",
                classify(MODULE, e).stack(),
                "without a wrapper every frame of the user's file stays");
    }

    @Test
    void framesOfOtherFilesStayButDoNotGiveThePosition() {
        JsError e =
                new JsError(
                        "Error",
                        "from a module",
                        "    at helper (lib.js:1:80)\n    at <anonymous> (main.js:2:4)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals("    at helper (lib.js:1:80)\n    at <anonymous> (main.js:2:4)\n", r.stack());
        assertEquals(2, r.line());
        assertEquals(4, r.column());
    }

    @Test
    void noStackMeansNoPosition() {
        RunError r = classify(WRAPPED, new JsError("number", "42", ""));
        assertEquals(RunError.Kind.EXCEPTION, r.kind());
        assertEquals("", r.stack());
        assertEquals(0, r.line());
        assertEquals(0, r.column());
    }

    @Test
    void aSyntaxErrorIsSyntaxOnlyWhileCompiling() {
        JsError e = new JsError("SyntaxError", "unexpected token", "    at main.js:2:5\n");
        RunError compiling = WRAPPED.classify(e, true, null, false);
        assertEquals(RunError.Kind.SYNTAX, compiling.kind());
        assertEquals(2, compiling.line());
        assertEquals(5, compiling.column());
        assertEquals(RunError.Kind.EXCEPTION, classify(WRAPPED, e).kind(), "thrown at run time");
    }

    @Test
    void aRefusedImportIsAnImportError() {
        JsError e =
                new JsError(
                        "ReferenceError",
                        "cannot import 'x': this run declares no modules",
                        "    at main.js:1:1\n");
        RunError r = MODULE.classify(e, true, null, false);
        assertEquals(RunError.Kind.IMPORT, r.kind());
        assertEquals(1, r.line());
        assertEquals(
                RunError.Kind.EXCEPTION,
                classify(MODULE, new JsError("ReferenceError", "x is not defined", "")).kind());
    }

    @Test
    void outOfMemoryNamesTheHeapLimit() {
        JsError e = new JsError("InternalError", "out of memory", "    at f (main.js:2:1)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals(RunError.Kind.MEMORY, r.kind());
        assertEquals("InternalError", r.name());
        assertEquals(
                "out of memory (the guest heap limit, heapBytes, is " + HEAP + ")", r.message());
        assertEquals(2, r.line());
    }

    @Test
    void aBareNullIsTheHeapsDoingOnlyWhenGrowthWasRefused() {
        JsError bare = new JsError("object", "null", "");
        RunError exhausted = WRAPPED.classify(bare, false, null, true);
        assertEquals(RunError.Kind.MEMORY, exhausted.kind());
        assertEquals("InternalError", exhausted.name());
        assertTrue(exhausted.message().contains("heapBytes, is " + HEAP), exhausted.message());
        RunError thrown = WRAPPED.classify(bare, false, null, false);
        assertEquals(RunError.Kind.EXCEPTION, thrown.kind(), "the guest threw null itself");
        assertEquals("null", thrown.name());
        assertEquals("null was thrown, not an Error", thrown.message());
    }

    @Test
    void aThrownPrimitiveIsSaidPlainlyAndAnErrorIsLeftAlone() {
        RunError s = classify(WRAPPED, new JsError("string", "boom", ""));
        assertEquals("string", s.name());
        assertEquals("a string was thrown, not an Error: boom", s.message());
        assertEquals(
                "undefined was thrown, not an Error",
                classify(WRAPPED, new JsError("undefined", "undefined", "")).message());
        assertEquals(
                "an object that is not an Error was thrown: [object Object]",
                classify(WRAPPED, new JsError("object", "[object Object]", "")).message());
        RunError named = classify(WRAPPED, new JsError("Test262Error", "boom", ""));
        assertEquals("Test262Error", named.name());
        assertEquals("boom", named.message());
        RunError withStack =
                classify(
                        WRAPPED,
                        new JsError("string", "an Error named string", "    at f (main.js:2:1)\n"));
        assertEquals("an Error named string", withStack.message());
    }

    @Test
    void aStackOverflowNamesTheStackLimit() {
        JsError e =
                new JsError(
                        "RangeError",
                        "Maximum call stack size exceeded",
                        "    at r (main.js:1:40)\n    at r (main.js:1:40)\n");
        RunError r = classify(WRAPPED, e);
        assertEquals(RunError.Kind.STACK, r.kind());
        assertEquals(
                "Maximum call stack size exceeded (the stack limit, stackBytes, is " + STACK + ")",
                r.message());
        assertEquals(1, r.line());
        assertEquals(5, r.column());
    }

    @Test
    void anInterruptReportsWhatStoppedTheRun() {
        JsError interrupted = new JsError("InternalError", "interrupted", "    at main.js:2:1\n");
        RunError timeout = RunError.of(RunError.Kind.TIMEOUT, "TimeoutError", "CPU budget");
        assertSame(timeout, WRAPPED.classify(interrupted, false, timeout, false));
        assertEquals(
                RunError.Kind.EXCEPTION,
                classify(WRAPPED, interrupted).kind(),
                "no budget stopped it: reported as thrown");
        JsError other = new JsError("Error", "boom", "");
        assertEquals(
                RunError.Kind.EXCEPTION,
                WRAPPED.classify(other, false, timeout, false).kind(),
                "only the interrupt itself becomes the budget's error");
    }

    @Test
    void aFilenameWithRegexCharactersIsMatchedLiterally() {
        ErrorClassifier odd = new ErrorClassifier("a+b(1).js", 10, 5, HEAP, STACK);
        JsError e =
                new JsError("Error", "x", "    at f (a+b(1).js:1:15)\n    at g (a+b(1).js:9:1)\n");
        RunError r = odd.classify(e, false, null, false);
        assertEquals("    at f (a+b(1).js:1:5)\n", r.stack());
        assertEquals(1, r.line());
        assertEquals(5, r.column());
    }
}
