package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.EngineOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A parse the analysis engine cannot finish (past its time limit) is reported as the run's syntax
 * error, drops the parser's runtime without touching the values it made again, and leaves the
 * analyzer usable: the next parse loads the parser into a fresh runtime.
 */
class CodeAnalyzerLimitsTest {
    /** 200 KB: far more than acorn parses in 1 ms on this engine. */
    private static final String BIG = "let x = 0;\n" + "x += 1;\n".repeat(25_000) + "return x;";

    @Test
    void aParsePastItsTimeLimitIsReportedAndTheNextParseWorks() {
        CodeAnalyzer analyzer =
                new CodeAnalyzer(
                        EngineOptions.builder()
                                .withMaxMemoryPages(CodeAnalyzer.MEMORY_PAGES)
                                .build());
        try {
            for (int round = 0; round < 2; round++) {
                analyzer.timeLimit(Duration.ofMillis(1));
                CodeAnalyzer.Parsed slow = analyzer.parseUncached(BIG + " // " + round);
                RunError err = slow.syntaxError();
                assertNotNull(err, "round " + round);
                assertEquals(RunError.Kind.SYNTAX, err.kind());
                assertEquals(
                        "the code could not be analysed: parsing took longer than 1 ms",
                        err.message());
                CodeAnalyzer.SessionPlan plan = analyzer.sessionPlan(BIG);
                assertEquals(
                        "the code could not be analysed: parsing took longer than 1 ms",
                        plan.syntaxError().message());

                analyzer.timeLimit(CodeAnalyzer.TIME_LIMIT);
                CodeAnalyzer.Parsed small = analyzer.parseUncached("return 1;");
                assertNull(small.syntaxError(), "round " + round);
                assertTrue(small.script());
                assertFalse(small.hasExports());
                assertEquals(List.of(), small.imports());
            }
        } finally {
            analyzer.close();
        }
    }
}
