package dev.sandjar.bridges.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** crypto.*: random values with WebCrypto's limits and errors, and digests checked by the JDK. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CryptoTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private static Object run(String code) {
        return sandbox.run(
                        RunRequest.builder(
                                        "const attempt = async (f) => { try { await f(); return"
                                                + " 'no error'; } catch (e) { return `${e.name}"
                                                + " ${e.code}: ${e.message}`; } };\n"
                                                + "const hex = (buf) => toHex(new"
                                                + " Uint8Array(buf));\n"
                                                + code)
                                .bridge(Crypto.bridge())
                                .bridge(GuestHelpers.bridge())
                                .build())
                .valueOrThrow();
    }

    private static String sha(String algorithm, byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(data));
    }

    private static String hmac(String algorithm, byte[] key, byte[] data) throws Exception {
        Mac mac = Mac.getInstance(algorithm);
        mac.init(new SecretKeySpec(key, algorithm));
        return HexFormat.of().formatHex(mac.doFinal(data));
    }

    @Test
    void randomUuidsAreVersion4AndDistinct() {
        List<?> out =
                (List<?>)
                        run(
                                "const ids = Array.from({ length: 20 }, () =>"
                                    + " crypto.randomUUID());\n"
                                    + "return [new Set(ids).size, ids.every((id) =>"
                                    + " /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))];");
        assertEquals(List.of(20L, true), out);
    }

    @Test
    void getRandomValuesFillsTheCallersArrayInPlace() {
        List<?> out =
                (List<?>)
                        run(
                                "const kinds = [Int8Array, Uint8Array, Uint8ClampedArray,"
                                    + " Int16Array, Uint16Array, Int32Array, Uint32Array,"
                                    + " BigInt64Array, BigUint64Array];\n"
                                    + "const same = kinds.every((K) => { const a = new K(64);"
                                    + " return crypto.getRandomValues(a) === a && a.some((v) => v"
                                    + " != 0); });\n"
                                    + "const whole = new Uint8Array(16);\n"
                                    + "const view = whole.subarray(4, 8);\n"
                                    + "crypto.getRandomValues(view);\n"
                                    + "const max = crypto.getRandomValues(new Uint8Array(65536));\n"
                                    + "const empty = crypto.getRandomValues(new Uint32Array(0));\n"
                                    + "return [same, Array.from(whole.subarray(0, 4)),"
                                    + " Array.from(whole.subarray(8)), view.some((v) => v !== 0),"
                                    + " max.length, new Set(max.subarray(65280)).size > 100,"
                                    + " empty.length];");
        assertEquals(
                Arrays.asList(
                        true,
                        List.of(0L, 0L, 0L, 0L),
                        List.of(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L),
                        true,
                        65536L,
                        true,
                        0L),
                out);
    }

    @Test
    void getRandomValuesRefusesWhatWebCryptoRefuses() {
        List<?> out =
                (List<?>)
                        run(
                                "return Promise.all([new Float32Array(2), new Float64Array(2), new"
                                    + " DataView(new ArrayBuffer(2)), [1, 2], new ArrayBuffer(2),"
                                    + " null, new Uint8Array(65537), new"
                                    + " BigUint64Array(8193)].map((a) => attempt(() =>"
                                    + " crypto.getRandomValues(a))));");
        String types =
                "expected an integer typed array (Int8Array, Uint8Array, Uint8ClampedArray,"
                        + " Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array,"
                        + " BigUint64Array), got ";
        String mismatch = "TypeMismatchError TYPE_MISMATCH: crypto.getRandomValues: " + types;
        assertEquals(
                List.of(
                        mismatch + "a Float32Array",
                        mismatch + "a Float64Array",
                        mismatch + "a DataView",
                        mismatch + "an array",
                        mismatch + "an ArrayBuffer",
                        mismatch + "null",
                        "QuotaExceededError QUOTA_EXCEEDED: crypto.getRandomValues: 65537 bytes"
                                + " requested; at most 65536 bytes per call",
                        "QuotaExceededError QUOTA_EXCEEDED: crypto.getRandomValues: 65544 bytes"
                                + " requested; at most 65536 bytes per call"),
                out);
    }

    @Test
    void digestsMatchTheJdkOverStringsAndEveryKindOfBytes() throws Exception {
        List<?> out =
                (List<?>)
                        run(
                                "const abc = new Uint8Array([97, 98, 99]);\n"
                                    + "const padded = new Uint8Array([0, 97, 98, 99, 0]);\n"
                                    + "const results = [];\n"
                                    + "for (const alg of ['SHA-1', 'SHA-256', 'SHA-384',"
                                    + " 'SHA-512']) results.push(hex(await crypto.digest(alg,"
                                    + " 'abc')));\n"
                                    + "const forms = [abc, abc.buffer, new DataView(abc.buffer),"
                                    + " padded.subarray(1, 4), new Uint16Array(new Uint8Array([97,"
                                    + " 98, 99, 0]).buffer).subarray(0, 1)];\n"
                                    + "for (const f of forms) results.push(hex(await"
                                    + " crypto.digest({ name: 'sha-256' }, f)));\n"
                                    + "const buf = await crypto.digest('sha256', '€\\ud800');\n"
                                    + "results.push(hex(await crypto.digest('SHA-256',"
                                    + " 'é'.repeat(8191) + '😀' + 'é'.repeat(9000))));\n"
                                    + "const big = new Uint8Array(3 << 20).fill(7);\n"
                                    + "results.push(hex(buf), buf instanceof ArrayBuffer, hex(await"
                                    + " crypto.digest('SHA-512', big)));\n"
                                    + "results.push(crypto.digest('SHA-256', 'x') instanceof"
                                    + " Promise);\n"
                                    + "return results;");
        byte[] abc = "abc".getBytes(StandardCharsets.US_ASCII);
        String sha256 = sha("SHA-256", abc);
        byte[] big = new byte[3 << 20];
        Arrays.fill(big, (byte) 7);
        // '€' then a lone surrogate: UTF-8 E2 82 AC, then U+FFFD as WHATWG encodes it.
        byte[] euro = {
            (byte) 0xe2, (byte) 0x82, (byte) 0xac, (byte) 0xef, (byte) 0xbf, (byte) 0xbd
        };
        assertEquals(
                List.of(
                        sha("SHA-1", abc),
                        sha256,
                        sha("SHA-384", abc),
                        sha("SHA-512", abc),
                        sha256,
                        sha256,
                        sha256,
                        sha256,
                        sha("SHA-256", new byte[] {97, 98}),
                        // Long enough to cross in pieces, a surrogate pair split between two.
                        sha(
                                "SHA-256",
                                ("é".repeat(8191) + "😀" + "é".repeat(9000))
                                        .getBytes(StandardCharsets.UTF_8)),
                        sha("SHA-256", euro),
                        true,
                        sha("SHA-512", big),
                        true),
                out);
        assertEquals(
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                sha256,
                "FIPS 180-2's SHA-256 of 'abc'");
    }

    @Test
    void hmacsMatchTheJdkAndRfc4231() throws Exception {
        List<?> out =
                (List<?>)
                        run(
                                "const data = 'what do ya want for nothing?';\n"
                                    + "return [hex(await crypto.hmac('SHA-256', 'Jefe', data)),"
                                    + " hex(await crypto.hmac('SHA-512', new"
                                    + " TextEncoder().encode('Jefe'), new"
                                    + " TextEncoder().encode(data).buffer)),\n"
                                    + "  hex(await crypto.hmac('SHA-1', 'key', 'msg')), hex(await"
                                    + " crypto.hmac('SHA-384', '', ''))];");
        byte[] jefe = "Jefe".getBytes(StandardCharsets.US_ASCII);
        byte[] data = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
        String rfc4231Case2 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
        assertEquals(rfc4231Case2, hmac("HmacSHA256", jefe, data));
        assertEquals(
                List.of(
                        rfc4231Case2,
                        hmac("HmacSHA512", jefe, data),
                        hmac(
                                "HmacSHA1",
                                "key".getBytes(StandardCharsets.US_ASCII),
                                "msg".getBytes(StandardCharsets.US_ASCII)),
                        // An empty key is the all-zero block, the same as one zero byte.
                        hmac("HmacSHA384", new byte[1], new byte[0])),
                out);
        assertNotEquals(out.get(3), hmac("HmacSHA384", new byte[] {1}, new byte[0]));
    }

    @Test
    void badAlgorithmsAndDataRejectWithStableNames() {
        List<?> out =
                (List<?>)
                        run(
                                "return Promise.all([() => crypto.digest('MD5', 'x'), () =>"
                                    + " crypto.digest('SHA-256', 42), () => crypto.digest(null,"
                                    + " 'x'), () => crypto.hmac('SHA-3', 'k', 'x'), () =>"
                                    + " crypto.hmac('SHA-256', { key: 1 }, 'x')].map(attempt));");
        assertEquals(
                List.of(
                        "NotSupportedError UNSUPPORTED_ALGORITHM: crypto.digest: algorithm 'MD5'"
                                + " is not supported; use SHA-1, SHA-256, SHA-384 or SHA-512",
                        "TypeError INVALID_ARGUMENT: crypto.digest: data must be a string (hashed"
                                + " as UTF-8), an ArrayBuffer, a typed array or a DataView, got a"
                                + " number",
                        "TypeError INVALID_ARGUMENT: crypto.digest: algorithm must be a name such"
                                + " as 'SHA-256' or { name: 'SHA-256' }, got null",
                        "NotSupportedError UNSUPPORTED_ALGORITHM: crypto.hmac: algorithm 'SHA-3'"
                                + " is not supported; use SHA-1, SHA-256, SHA-384 or SHA-512",
                        "TypeError INVALID_ARGUMENT: crypto.hmac: key must be a string (hashed as"
                                + " UTF-8), an ArrayBuffer, a typed array or a DataView, got an"
                                + " object"),
                out);
    }
}
