package dev.sandjar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line's speed check over several draws: each figure is the median draw, every draw's
 * time to speed and steady state are kept, and one slow draw neither sets the figure nor fails the
 * check.
 */
class CliSpeedTest {
    /**
     * A side launched at 0 whose calls take {@code slowMs} until {@code fastFromS}, then {@code
     * fastMs}, one call after another for 60 s.
     */
    private static CliSpeed.Side side(double fastFromS, long slowMs, long fastMs) {
        return side(fastFromS, slowMs, fastMs, "archive.jsa");
    }

    private static CliSpeed.Side side(double fastFromS, long slowMs, long fastMs, String archive) {
        List<long[]> calls = new ArrayList<>();
        long at = 500;
        while (at < 60_000) {
            long ms = at < fastFromS * 1000 ? slowMs : fastMs;
            calls.add(new long[] {at, ms});
            at += ms;
        }
        return new CliSpeed.Side("x", 0, calls, archive);
    }

    @Test
    void eachFigureIsTheMedianDrawAndEveryDrawIsKept() {
        CliSpeed.Result r =
                new CliSpeed.Result(
                        60,
                        List.of(side(4.6, 400, 60), side(40.4, 400, 64), side(6.1, 400, 61)),
                        List.of(side(8.1, 300, 62), side(8.6, 300, 60), side(5.0, 300, 63)));
        Map<String, Double> m = r.numbers();
        assertEquals(3.0, m.get("draws"));
        assertEquals(61.0, m.get("cliSteadyMs"));
        assertEquals(62.0, m.get("librarySteadyMs"));
        assertEquals(6.1, m.get("cliTimeToSpeedS"), 0.5);
        assertEquals(40.4, m.get("cliTimeToSpeedS.2"), 0.5);
        assertEquals(8.1, m.get("libraryTimeToSpeedS"), 0.5);
        assertEquals(61.0 / 62.0, m.get("ratio"), 1e-9);
        assertTrue(r.ok());
        assertEquals(1.0, m.get("cliArchive"));
        assertEquals(0.0, m.get("cliAotCache"));
        String table = CliSpeed.table(m);
        assertTrue(table.contains("with its CDS archive"), table);
        assertTrue(table.contains("| 61 (60 / 64 / 61) |"), table);
        assertTrue(
                table.matches("(?s).*\\| 6\\.[0-9] \\(4\\.[0-9] / 40\\.[0-9] / 6\\.[0-9]\\) \\|.*"),
                table);
    }

    @Test
    void aCommandLineOnItsAotCacheIsLabelledSo() {
        CliSpeed.Result r =
                new CliSpeed.Result(
                        60,
                        List.of(side(4.6, 400, 60, "sandjar-1.aot")),
                        List.of(side(5.1, 300, 61)));
        Map<String, Double> m = r.numbers();
        assertEquals(1.0, m.get("cliArchive"));
        assertEquals(1.0, m.get("cliAotCache"));
        assertTrue(
                CliSpeed.table(m).contains("`./sandjar run` (with its AOT cache)"), m.toString());
    }

    @Test
    void oneDrawShowsNoDrawsAndASlowCommandLineFails() {
        CliSpeed.Result r =
                new CliSpeed.Result(60, List.of(side(100, 400, 400)), List.of(side(5, 300, 60)));
        Map<String, Double> m = r.numbers();
        assertFalse(m.containsKey("cliTimeToSpeedS.1"));
        assertFalse(r.ok());
        assertTrue(r.failure().startsWith("FAIL: guest code through ./sandjar run is 6.7x slower"));
        assertTrue(
                CliSpeed.table(m).contains("| 400 | 400 | 400 | 0.5 | 149 |"), CliSpeed.table(m));
    }

    @Test
    void theSidesMustHaveAsManyDrawsEach() {
        CliSpeed.Side s = side(5, 300, 60);
        assertThrows(
                IllegalArgumentException.class,
                () -> new CliSpeed.Result(60, List.of(s, s), List.of(s)));
        assertThrows(
                IllegalArgumentException.class,
                () -> new CliSpeed.Result(60, List.of(), List.of()));
    }
}
