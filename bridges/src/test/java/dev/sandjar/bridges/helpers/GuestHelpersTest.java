package dev.sandjar.bridges.helpers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.time.Sleep;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Base64, hex, TextEncoder/TextDecoder and parallelMap, as pure guest code in a real run. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GuestHelpersTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** Runs {@code code} with the helpers (and sleep, for parallelMap) and returns its value. */
    private static Object run(String code) {
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "const attempt = (f) => { try { return f(); } catch (e) {"
                                                + " return `${e.name} ${e.code}: ${e.message}`; }"
                                                + " };\n"
                                                + code)
                                .bridge(GuestHelpers.bridge())
                                .bridge(Sleep.bridge())
                                .build());
        return r.valueOrThrow();
    }

    @Test
    void theHelpersNeedNoHostOperation() {
        assertTrue(GuestHelpers.bridge().operations().isEmpty());
    }

    @Test
    void base64MatchesRfc4648AndRoundTripsEveryByte() {
        Object out =
                run(
                        "const vectors = ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'];\n"
                            + "const all = new Uint8Array(256).map((_, i) => i);\n"
                            + "const back = fromBase64(toBase64(all));\n"
                            + "return [vectors.map((v) => toBase64(v)),\n"
                            + "  vectors.map((v) => new"
                            + " TextDecoder().decode(fromBase64(toBase64(v)))),\n"
                            + "  toBase64(all), back.length === 256 && back.every((b, i) => b ==="
                            + " i),\n"
                            + "  toBase64(new Uint8Array([251, 255, 191]), { alphabet: 'base64url'"
                            + " }),\n"
                            + "  toBase64(new Uint8Array([1]), { omitPadding: true }),\n"
                            + "  Array.from(fromBase64('-_-_', { alphabet: 'base64url' })),\n"
                            + "  Array.from(fromBase64('Zm9v\\n"
                            + "YmE')),\n"
                            + "  toBase64(new Uint16Array([0x0201]).buffer), toBase64('€')];");
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        assertEquals(
                List.of(
                        List.of("", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"),
                        List.of("", "f", "fo", "foo", "foob", "fooba", "foobar"),
                        Base64.getEncoder().encodeToString(all),
                        true,
                        "-_-_",
                        "AQ",
                        List.of(251L, 255L, 191L),
                        List.of(102L, 111L, 111L, 98L, 97L),
                        "AQI=",
                        Base64.getEncoder().encodeToString("€".getBytes(StandardCharsets.UTF_8))),
                out);
    }

    @Test
    void fromBase64IsStrictAndSaysWhy() {
        Object out =
                run(
                        "return ['Zm9v!', 'Z', 'Zm9vY', 'Zg=', 'Zg===', 'Zg==Zg==', 'Zh==', 'Zm9=',"
                                + " '-_8=', 'Zm9v\\u00e9']\n"
                                + "  .map((s) => attempt(() => fromBase64(s)))\n"
                                + "  .concat([attempt(() => fromBase64(42)), attempt(() =>"
                                + " fromBase64('', { alphabet: 'base32' }))]);");
        List<?> errors = (List<?>) out;
        String[] expected = {
            "invalid character '!' at index 4",
            "group of 1, which is incomplete",
            "group of 1, which is incomplete",
            "1 '=' after a final group of 2 character(s) is wrong padding",
            "3 '=' after a final group of 2 character(s) is wrong padding",
            "'=' padding before index 4",
            "bits set past the end of the data",
            "bits set past the end of the data",
            "invalid character '-' at index 0",
            "invalid character U+00E9 at index 4",
        };
        for (int i = 0; i < expected.length; i++) {
            String e = (String) errors.get(i);
            assertTrue(e.startsWith("SyntaxError INVALID_BASE64: fromBase64: "), e);
            assertTrue(e.contains(expected[i]), e);
        }
        assertEquals(
                "TypeError INVALID_ARGUMENT: fromBase64: expected a string, got a number",
                errors.get(10));
        assertTrue(((String) errors.get(11)).contains("'base64' or 'base64url'"));
    }

    @Test
    void hexRoundTripsAndRefusesBadInput() {
        Object out =
                run(
                        "const all = new Uint8Array(256).map((_, i) => i);\n"
                                + "const hex = toHex(all);\n"
                                + "const back = fromHex(hex.toUpperCase());\n"
                                + "return [hex, back.every((b, i) => b === i), toHex('hi'),"
                                + " toHex(new Uint16Array([0x0a0b])), toHex(new Uint8Array(0)),\n"
                                + "  attempt(() => fromHex('abc')), attempt(() => fromHex('0g')),"
                                + " attempt(() => fromHex(null)), attempt(() => toHex(12))];");
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        assertEquals(
                List.of(
                        HexFormat.of().formatHex(all),
                        true,
                        "6869",
                        "0b0a",
                        "",
                        "SyntaxError INVALID_HEX: fromHex: the string has 3 characters; hex needs"
                                + " an even number (two per byte)",
                        "SyntaxError INVALID_HEX: fromHex: invalid character 'g' at index 1; hex"
                                + " digits are 0-9 a-f A-F",
                        "TypeError INVALID_ARGUMENT: fromHex: expected a string, got null",
                        "TypeError INVALID_ARGUMENT: toHex: expected a Uint8Array, ArrayBuffer,"
                                + " typed array or DataView or a string (encoded as UTF-8), got a"
                                + " number"),
                out);
    }

    @Test
    void textEncoderWritesUtf8AndReplacesLoneSurrogates() {
        Object out =
                run(
                        "const enc = new TextEncoder();\n"
                                + "const hex = (s) => toHex(enc.encode(s));\n"
                                + "const into = new Uint8Array(5);\n"
                                + "const r = enc.encodeInto('a€😀', into);\n"
                                + "return [enc.encoding, hex('abc'), hex('é€😀'), hex('\\ud800'),"
                                + " hex('a\\udc00b'), hex('\\udc00\\ud800'), hex('\\ud83d\\ude00'),"
                                + " hex(), enc.encode('x') instanceof Uint8Array, [r.read,"
                                + " r.written, toHex(into)]];");
        assertEquals(
                List.of(
                        "utf-8",
                        "616263",
                        "c3a9e282acf09f9880",
                        "efbfbd",
                        "61efbfbd62",
                        "efbfbdefbfbd",
                        "f09f9880",
                        "",
                        true,
                        // The emoji needs 4 bytes and only 1 is left: encodeInto stops before it.
                        List.of(2L, 4L, "61e282ac00")),
                out);
    }

    @Test
    void textDecoderFollowsWhatwgOnBadInputBomsAndStreams() {
        Object out =
                run(
                        "const dec = (bytes, opts) => new TextDecoder('utf-8', opts).decode(new"
                                + " Uint8Array(bytes));\n"
                                + "const codes = (s) => Array.from(s, (c) =>"
                                + " c.codePointAt(0).toString(16)).join(' ');\n"
                                + "const s = new TextDecoder();\n"
                                + "const streamed = s.decode(new Uint8Array([0xef, 0xbb]), {stream:"
                                + " true}) + s.decode(new Uint8Array([0xbf, 0xe2, 0x82]), {stream:"
                                + " true}) + s.decode(new Uint8Array([0xac, 0x41]), {stream: true})"
                                + " + s.decode(new Uint8Array([0xef, 0xbb, 0xbf]));\n"
                                + "return [\n"
                                // Unicode 3.9, Table 3-8: one U+FFFD per maximal subpart.
                                + "  codes(dec([0x61, 0xf1, 0x80, 0x80, 0xe1, 0x80, 0xc2, 0x62,"
                                + " 0x80, 0x63, 0x80, 0xbf, 0x64])),\n"
                                + "  codes(dec([0xc0, 0x80])), codes(dec([0xed, 0xa0, 0x80])),"
                                + " codes(dec([0xf4, 0x90, 0x80, 0x80])), codes(dec([0xe2,"
                                + " 0x82])),\n"
                                + "  attempt(() => dec([0x61, 0xff], { fatal: true })),\n"
                                + "  codes(dec([0xef, 0xbb, 0xbf, 0x41])), codes(dec([0xef, 0xbb,"
                                + " 0xbf, 0x41], { ignoreBOM: true })),\n"
                                + "  codes(streamed),\n"
                                + "  new TextDecoder().decode(new TextEncoder().encode('héllo"
                                + " €😀')),\n"
                                + "  new TextDecoder(' UTF8 ').decode(new"
                                + " Uint16Array([0x6968]).buffer),\n"
                                + "  new TextDecoder().decode(new DataView(new Uint8Array([0x6f,"
                                + " 0x6b]).buffer)), new TextDecoder().decode(),\n"
                                + "  attempt(() => new TextDecoder('latin1')), attempt(() => new"
                                + " TextDecoder().decode('text'))];");
        assertEquals(
                List.of(
                        "61 fffd fffd fffd 62 fffd 63 fffd fffd 64",
                        "fffd fffd",
                        "fffd fffd fffd",
                        "fffd fffd fffd fffd",
                        "fffd",
                        "TypeError INVALID_UTF8: TextDecoder.decode: the data is not valid UTF-8"
                                + " (bad sequence at byte 1)",
                        "41",
                        "feff 41",
                        // The stream's BOM goes; the one in its last chunk is content.
                        "20ac 41 feff",
                        "héllo €😀",
                        "hi",
                        "ok",
                        "",
                        "RangeError UNSUPPORTED_ENCODING: TextDecoder: the encoding 'latin1' is not"
                            + " supported; only UTF-8 is (labels: utf-8, utf8, unicode-1-1-utf-8,"
                            + " unicode11utf8, unicode20utf8, x-unicode20utf8)",
                        "TypeError INVALID_ARGUMENT: TextDecoder.decode: expected a Uint8Array,"
                                + " ArrayBuffer, typed array or DataView, got a string"),
                out);
    }

    @Test
    void parallelMapKeepsOrderBoundsConcurrencyAndStopsAtTheFirstFailure() {
        Object out =
                run(
                        "let active = 0, peak = 0, started = 0;\n"
                            + "const track = async (ms, v) => { started++; active++; peak ="
                            + " Math.max(peak, active);\n"
                            + "  try { await sleep(ms); return v; } finally { active--; } };\n"
                            + "const ordered = await parallelMap([60, 10, 40, 0, 20, 5], (ms, i) =>"
                            + " track(ms, `${i}:${ms}`), 3);\n"
                            + "const orderedPeak = peak; peak = 0;\n"
                            + "const many = await parallelMap(Array.from({ length: 40 }, (_, i) =>"
                            + " i), (x) => track(20, x * 2), 100);\n"
                            + "const cappedPeak = peak; peak = 0;\n"
                            + "await parallelMap(new Set([1, 2, 3, 4, 5, 6, 7]), (x) => track(10,"
                            + " x));\n"
                            + "const defaultPeak = peak; started = 0;\n"
                            + "let failure;\n"
                            + "try { await parallelMap(Array.from({ length: 20 }, (_, i) => i),"
                            + " async (i) => { await track(10, i); if (i === 3) throw new"
                            + " Error('item 3 failed'); return i; }, 2); }\n"
                            + "catch (e) { failure = e.message; }\n"
                            + "const startedBeforeFailure = started;\n"
                            + "return [ordered, orderedPeak, many.length, many[39], cappedPeak,"
                            + " defaultPeak, failure, startedBeforeFailure < 20,\n"
                            + "  await parallelMap([], () => 1),\n"
                            + "  ...(await Promise.all([parallelMap([1], (x) => x, 0),"
                            + " parallelMap([1], (x) => x, 1.5), parallelMap([1], (x) => x, '2'),"
                            + " parallelMap([1], 'f'), parallelMap(5, (x) => x)].map((p) =>"
                            + " p.then(() => 'resolved', (e) => `${e.name} ${e.code}`))))];");
        assertEquals(
                List.of(
                        List.of("0:60", "1:10", "2:40", "3:0", "4:20", "5:5"),
                        3L,
                        40L,
                        78L,
                        32L,
                        5L,
                        "item 3 failed",
                        true,
                        List.of(),
                        "RangeError INVALID_ARGUMENT",
                        "RangeError INVALID_ARGUMENT",
                        "RangeError INVALID_ARGUMENT",
                        "TypeError INVALID_ARGUMENT",
                        "TypeError INVALID_ARGUMENT"),
                out);
    }
}
