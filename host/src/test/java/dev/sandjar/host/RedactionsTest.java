package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Redactions} and the log's masking, on plain values: no engine, no run. */
class RedactionsTest {
    private static final String SECRET = "p@ss w0rd/+?~";

    private static Redactions masking(String... values) {
        Redactions r = new Redactions();
        for (String v : values) {
            assertTrue(r.add(v), v);
        }
        return r;
    }

    @Test
    void everyEncodedFormIsMasked() {
        Redactions r = masking(SECRET);
        byte[] bytes = SECRET.getBytes(StandardCharsets.UTF_8);
        List<String> forms =
                List.of(
                        SECRET,
                        Base64.getEncoder().encodeToString(bytes),
                        Base64.getEncoder().withoutPadding().encodeToString(bytes),
                        Base64.getUrlEncoder().encodeToString(bytes),
                        Base64.getUrlEncoder().withoutPadding().encodeToString(bytes),
                        HexFormat.of().formatHex(bytes),
                        HexFormat.of().withUpperCase().formatHex(bytes),
                        "p%40ss+w0rd%2F%2B%3F%7E", // URLEncoder, form encoding
                        "p%40ss%20w0rd%2F%2B%3F~"); // encodeURIComponent
        for (String f : forms) {
            assertEquals("before *** after", r.apply("before " + f + " after"), f);
        }
    }

    @Test
    void aValueInsideALongerBase64TextIsMaskedAtEveryAlignment() {
        Redactions r = masking(SECRET);
        for (String prefix : List.of("", "u:", "us:", "user:")) {
            for (Base64.Encoder enc : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
                String basic =
                        enc.encodeToString(
                                (prefix + SECRET + "-tail").getBytes(StandardCharsets.UTF_8));
                String masked = r.apply("Authorization: Basic " + basic);
                assertTrue(masked.contains(Redactions.MASK), prefix + " -> " + masked);
                assertFalse(masked.contains(basic), masked);
            }
        }
    }

    @Test
    void otherTextSurvivesAndShortValuesAreNotMasked() {
        Redactions r = masking("hunter2");
        assertEquals("nothing to hide here", r.apply("nothing to hide here"));
        assertEquals("a *** b ***", r.apply("a hunter2 b hunter2"));
        assertFalse(r.add("abc"), "three characters would mask every word that holds them");
        assertFalse(r.add(""));
        assertEquals("abc abcd", r.apply("abc abcd"));
    }

    @Test
    void eachLineOfAMultiLineValueIsMasked() {
        Redactions r = masking("-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----");
        assertEquals("line: ***", r.apply("line: MIIBOgIBAAJBAK"));
    }

    @Test
    void anErrorIsMaskedInNameMessageAndStack() {
        Redactions r = masking("hunter2");
        RunError e =
                new RunError(
                        RunError.Kind.EXCEPTION,
                        "hunter2Error",
                        "bad token hunter2",
                        "    at hunter2 (main.js:2:3)\n",
                        2,
                        3);
        assertEquals(
                new RunError(
                        RunError.Kind.EXCEPTION,
                        "***Error",
                        "bad token ***",
                        "    at *** (main.js:2:3)\n",
                        2,
                        3),
                r.apply(e));
    }

    @Test
    void theLogMasksBeforeItsListenerAndAgainWhenRead() {
        Redactions r = masking("hunter2");
        List<String> heard = new ArrayList<>();
        LogCollector log = new LogCollector(10, 1_000, e -> heard.add(e.message()), r);
        log.add(LogEntry.Level.LOG, "token hunter2", "guest");
        log.add(LogEntry.Level.LOG, "later s3cr3t-value", "guest");
        r.add("s3cr3t-value"); // a value the run learned after the line that printed it
        assertEquals(List.of("token ***", "later s3cr3t-value"), heard);
        assertEquals(
                List.of("token ***", "later ***"),
                log.entries().stream().map(LogEntry::message).toList());
    }

    @Test
    void theLogCountsMaskedCharacters() {
        Redactions r = masking("0123456789");
        LogCollector log = new LogCollector(10, 6, null, r);
        log.add(LogEntry.Level.LOG, "0123456789", "guest"); // 3 characters once masked
        log.add(LogEntry.Level.LOG, "abc", "guest");
        assertEquals(List.of("***", "abc"), log.entries().stream().map(LogEntry::message).toList());
    }
}
