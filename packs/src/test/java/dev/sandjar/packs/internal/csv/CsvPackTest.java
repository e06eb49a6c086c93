package dev.sandjar.packs.internal.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import dev.sandjar.packs.internal.HostWork;
import java.io.Reader;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/csv} through {@code Sandbox.run}, and its guard on a streamed hostile input. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CsvPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void parsesWithAHeaderAndWritesItBack() {
        Object v =
                packs.value(
                        "import csv, { parse } from '@sandjar/csv';\n"
                            + "const text = 'name,qty,note\\n"
                            + "\"Smith, Ann\",2,\"said \"\"hi\"\"\\n"
                            + "then left\"\\n"
                            + "\\n"
                            + "Bo,5,\\n"
                            + "';\n"
                            + "const objects = await parse(text, { header: true });\n"
                            + "const arrays = await csv.parse('a;b\\n"
                            + "1;2', { delimiter: ';' });\n"
                            + "const bytes = await parse(Uint8Array.from([0xef, 0xbb, 0xbf, 0x78,"
                            + " 0x2c, 0x79]));\n"
                            + "return [objects, arrays, bytes, await csv.stringify(objects),\n"
                            + "  await csv.stringify([[1, 2.5, true, null, 'a\\n"
                            + "b']], { newline: '\\r"
                            + "\\n"
                            + "' })];");
        assertEquals(
                List.of(
                        List.of(
                                Map.of(
                                        "name",
                                        "Smith, Ann",
                                        "qty",
                                        "2",
                                        "note",
                                        "said \"hi\"\nthen left"),
                                Map.of("name", "Bo", "qty", "5", "note", "")),
                        List.of(List.of("a", "b"), List.of("1", "2")),
                        List.of(List.of("x", "y")),
                        "name,qty,note\n\"Smith, Ann\",2,\"said \"\"hi\"\"\nthen left\"\nBo,5,\n",
                        "1,2.5,true,,\"a\nb\"\r\n"),
                v);
    }

    @Test
    void refusalsNameTheBound() {
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.csv.parse: row 2 has a field longer than 1048576"
                                        + " characters"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.csv.parse: input is 5242881 characters; at most"
                                        + " 5242880"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.csv.parse: row 1 has more than 10000 columns"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.csv.parse: more than 1000000 rows"),
                        List.of("CsvError", "CSV_MALFORMED"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                "packs.host.csv.parse: options.header must be a boolean or an array"
                                        + " of column names"),
                        List.of(
                                "CsvError",
                                "CSV_MALFORMED",
                                "packs.host.csv.parse: the header names column 'a' twice")),
                packs.value(
                        HostPackRuns.FAILURE
                                + "import { parse } from '@sandjar/csv';\n"
                                + "const quoted = 'a\\n\"' + 'x'.repeat((1 << 20) + 1) + '\"\\n';\n"
                                + "const unterminated = await failure(parse('a,\"b\\n'));\n"
                                + "return [await failure(parse(quoted)),\n"
                                + "  await failure(parse('x'.repeat(5 * (1 << 20) + 1))),\n"
                                + "  await failure(parse(','.repeat(10000))),\n"
                                + "  await failure(parse('a\\n'.repeat(1000001))),\n"
                                + "  unterminated.slice(0, 2),\n"
                                + "  await failure(parse('a', { header: 'yes' })),\n"
                                + "  await failure(parse('a,a\\n1,2', { header: true }))];"));
    }

    /**
     * A million one-cell rows, under the module's row cap, take a few hundred MiB of the host's
     * heap to build: with a run's {@code hostBytes} at 32 MiB (128 MiB of allocation) the call
     * fails by that name, the run goes on, and the next call of the run works.
     */
    @Test
    void aParseThatTakesMoreHostMemoryThanTheRunAllowsFailsByName() {
        RunResult r =
                packs.run(
                        "import { parse } from '@sandjar/csv';\n"
                                + "let first;\n"
                                + "try { await parse('a\\n'.repeat(999999)); }"
                                + " catch (e) { first = [e.name, e.code, e.message]; }\n"
                                + "return [first, (await parse('x,y')).length];",
                        Limits.builder().hostBytes(32L << 20).build());
        assertTrue(r.isOk(), r.toString());
        List<?> v = (List<?>) r.value();
        List<?> first = (List<?>) v.get(0);
        assertEquals(List.of("RangeError", "HOST_MEMORY_LIMIT"), first.subList(0, 2), v.toString());
        String message = (String) first.get(2);
        assertTrue(
                message.matches(
                        "packs\\.host\\.csv\\.parse: the call held \\d+ bytes; a host call may take"
                                + " at most 33554432 bytes \\(hostBytes\\)"),
                message);
        assertEquals(1L, v.get(1));
    }

    /** A 100 MB quoted field, streamed: refused after a few MiB, never read whole. */
    @Test
    void aHundredMegabyteQuotedFieldIsRefusedWhileItStreamsIn() {
        long size = 100L << 20;
        QuotedField hostile = new QuotedField(size);
        CsvModule.Options options = new CsvModule.Options(false, ',', '"', false, true, "\n");
        BridgeException e =
                assertThrows(
                        BridgeException.class,
                        () ->
                                CsvModule.parse(
                                        hostile, options, HostWork.Work.detached("csv.parse")));
        assertEquals("INPUT_TOO_LARGE", e.code());
        assertEquals("csv.parse: row 1 has a field longer than 1048576 characters", e.getMessage());
        assertTrue(hostile.given < (3L << 20), "read " + hostile.given + " characters of " + size);
    }

    /** {@code "xxx...} of {@code size} characters, made as it is read. */
    static final class QuotedField extends Reader {
        final long size;
        long given;

        QuotedField(long size) {
            this.size = size;
        }

        @Override
        public int read(char[] buf, int off, int len) {
            if (given >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - given);
            for (int i = 0; i < n; i++) {
                buf[off + i] = given + i == 0 ? '"' : 'x';
            }
            given += n;
            return n;
        }

        @Override
        public void close() {}
    }
}
