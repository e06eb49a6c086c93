package dev.sandjar.packs;

import java.util.List;
import java.util.Objects;

/**
 * A pack WebAssembly module's binary, authorized for delivery to a runner that calls it itself (the
 * browser runner), with what the host's checks need: each export's JavaScript name, binary name and
 * signature. The binary is the one discovery checked, and {@code sha256} is the hash the module's
 * graph digest names, so a runner that verifies the body against it runs what the catalog checked:
 * every memory of it has a declared maximum within the manifest's {@code memoryPagesMax}.
 *
 * @param specifier the module's public specifier
 * @param pack the name of the package that serves it (for entitlement checks)
 * @param graphId the graph id of its facade ({@code <specifier>::facade})
 * @param graphDigest the facade's graph digest (it covers {@code sha256})
 * @param sha256 SHA-256 (hex) of {@link #bytes}
 * @param functions the exports the facade offers, in its order
 */
public record WasmDelivery(
        String specifier,
        String pack,
        String graphId,
        String graphDigest,
        String sha256,
        byte[] bytes,
        List<Function> functions) {
    public static final String MEDIA_TYPE = "application/wasm";

    /**
     * One export: {@code name} as the facade names it, {@code wasmName} as the binary does, each
     * parameter's type ({@code i32}, {@code f32} or {@code f64}) and the result's ({@code void} for
     * none).
     */
    public record Function(String name, String wasmName, List<String> params, String result) {
        public Function {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(wasmName, "wasmName");
            Objects.requireNonNull(result, "result");
            params = List.copyOf(params);
        }
    }

    public WasmDelivery {
        Objects.requireNonNull(specifier, "specifier");
        Objects.requireNonNull(pack, "pack");
        Objects.requireNonNull(graphId, "graphId");
        Objects.requireNonNull(sha256, "sha256");
        bytes = bytes.clone();
        functions = List.copyOf(functions);
    }

    /** A copy of the binary. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WasmDelivery w
                && specifier.equals(w.specifier)
                && graphDigest.equals(w.graphDigest)
                && sha256.equals(w.sha256)
                && java.util.Arrays.equals(bytes, w.bytes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(specifier, graphDigest, sha256);
    }

    @Override
    public String toString() {
        return "WasmDelivery[" + specifier + ", " + bytes.length + " bytes, sha256 " + sha256 + "]";
    }
}
