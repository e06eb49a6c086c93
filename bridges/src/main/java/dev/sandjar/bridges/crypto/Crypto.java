package dev.sandjar.bridges.crypto;

import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.transport.BinaryValue;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code crypto.randomUUID()}, {@code crypto.getRandomValues(array)}, {@code crypto.digest(alg,
 * data)} and {@code crypto.hmac(alg, key, data)}, backed by the JDK's {@link SecureRandom}, {@link
 * MessageDigest} and {@link Mac}. Digests and MACs are Promises of an {@code ArrayBuffer}, as
 * {@code crypto.subtle.digest} returns; strings are hashed as UTF-8. See {@code docs/bridges.md}.
 */
public final class Crypto {
    /** The most bytes one {@code getRandomValues} call fills, as WebCrypto allows. */
    public static final int MAX_RANDOM_BYTES = 65_536;

    /** Inputs past this many bytes are hashed on the sandbox's executor, off the engine thread. */
    static final int INLINE_BYTES = 1 << 20;

    /** Guest name (upper case, without the hyphen) to JDK digest name. */
    private static final Map<String, String> ALGORITHMS =
            Map.of("SHA1", "SHA-1", "SHA256", "SHA-256", "SHA384", "SHA-384", "SHA512", "SHA-512");

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final Bridge BRIDGE =
            Bridge.builder("crypto")
                    .guest(GuestScripts.load(Crypto.class, "crypto.js"))
                    .operation(
                            Operation.builder("randomUUID")
                                    .handler(call -> UUID.randomUUID().toString())
                                    .build())
                    .operation(
                            Operation.builder("randomBytes")
                                    .param(Param.integer("length"))
                                    .handler(Crypto::randomBytes)
                                    .build())
                    .operation(
                            Operation.builder("digest")
                                    .param(Param.string("algorithm").maxLength(32))
                                    .param(Param.any("data"))
                                    .handler(Crypto::digest)
                                    .build())
                    .operation(
                            Operation.builder("hmac")
                                    .param(Param.string("algorithm").maxLength(32))
                                    .param(Param.any("key"))
                                    .param(Param.any("data"))
                                    .handler(Crypto::hmac)
                                    .build())
                    .build();

    private Crypto() {}

    /** The crypto bridge; one immutable instance serves every run. */
    public static Bridge bridge() {
        return BRIDGE;
    }

    private static Object randomBytes(OperationCall call) {
        long length = call.integer(0, 0);
        if (length < 0 || length > MAX_RANDOM_BYTES) {
            throw new BridgeException(
                    "QuotaExceededError",
                    "QUOTA_EXCEEDED",
                    "crypto.getRandomValues: "
                            + length
                            + " bytes requested; at most "
                            + MAX_RANDOM_BYTES
                            + " bytes per call");
        }
        byte[] bytes = new byte[(int) length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static Object digest(OperationCall call) {
        String algorithm = algorithm(call, "crypto.digest");
        byte[] data = bytes(call, 1, "crypto.digest", "data");
        return compute(call, data.length, () -> newDigest(algorithm).digest(data));
    }

    private static Object hmac(OperationCall call) {
        String algorithm = algorithm(call, "crypto.hmac");
        byte[] key = bytes(call, 1, "crypto.hmac", "key");
        byte[] data = bytes(call, 2, "crypto.hmac", "data");
        return compute(
                call,
                key.length + data.length,
                () -> {
                    String name = "Hmac" + algorithm.replace("-", "");
                    try {
                        Mac mac = Mac.getInstance(name);
                        // An empty key is legal in HMAC but not in SecretKeySpec; HMAC pads the
                        // key with zeros to the block size, so one zero byte is the same key.
                        mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, name));
                        return mac.doFinal(data);
                    } catch (GeneralSecurityException e) {
                        throw new IllegalStateException("the JDK lacks " + name, e);
                    }
                });
    }

    private interface Computation {
        byte[] bytes();
    }

    /**
     * The result as an ArrayBuffer stage, computed here or, for large inputs, off the engine
     * thread.
     */
    private static Object compute(OperationCall call, long inputBytes, Computation work) {
        if (inputBytes <= INLINE_BYTES) {
            return CompletableFuture.completedFuture(new BinaryValue("ArrayBuffer", work.bytes()));
        }
        return CompletableFuture.supplyAsync(
                () -> new BinaryValue("ArrayBuffer", work.bytes()), call.session().executor());
    }

    /** The JDK name for a guest algorithm name, {@code SHA-256} or {@code sha256} alike. */
    private static String algorithm(OperationCall call, String where) {
        String given = call.string(0);
        String jdk = ALGORITHMS.get(given.replace("-", "").toUpperCase(Locale.ROOT));
        if (jdk == null) {
            throw new BridgeException(
                    "NotSupportedError",
                    "UNSUPPORTED_ALGORITHM",
                    where
                            + ": algorithm '"
                            + given
                            + "' is not supported; use SHA-1, SHA-256, SHA-384 or SHA-512");
        }
        return jdk;
    }

    private static byte[] bytes(OperationCall call, int index, String where, String what) {
        Object v = call.arg(index);
        if (v instanceof String s) {
            // The guest half sent it well-formed, so UTF-8 encoding is exact.
            return s.getBytes(StandardCharsets.UTF_8);
        }
        if (v instanceof byte[] b) {
            return b;
        }
        if (v instanceof List<?> pieces) {
            // A long string, in pieces (see crypto.js); a pair may straddle two of them.
            StringBuilder s = new StringBuilder();
            for (Object piece : pieces) {
                if (!(piece instanceof String p)) {
                    throw BridgeException.invalidArgument(
                            where + ": " + what + " must be a string or bytes");
                }
                s.append(p);
            }
            return s.toString().getBytes(StandardCharsets.UTF_8);
        }
        throw BridgeException.invalidArgument(where + ": " + what + " must be a string or bytes");
    }

    private static MessageDigest newDigest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + algorithm, e);
        }
    }
}
