package dev.sandjar.transport;

import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * Binary data other than a {@code Uint8Array} (which decodes to {@code byte[]}): an {@code
 * ArrayBuffer}, a {@code DataView} or a typed array, as its kind and its bytes (little-endian, as
 * the guest holds them).
 */
public record BinaryValue(String kind, byte[] bytes) {
    static final Set<String> KINDS =
            Set.of(
                    "ArrayBuffer",
                    "DataView",
                    "Int8Array",
                    "Uint8Array",
                    "Uint8ClampedArray",
                    "Int16Array",
                    "Uint16Array",
                    "Int32Array",
                    "Uint32Array",
                    "Float32Array",
                    "Float64Array",
                    "BigInt64Array",
                    "BigUint64Array");

    public BinaryValue {
        Objects.requireNonNull(bytes, "bytes");
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown binary kind " + kind + "; one of " + KINDS);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinaryValue b && b.kind.equals(kind) && Arrays.equals(b.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return kind + "[" + bytes.length + " bytes]";
    }
}
