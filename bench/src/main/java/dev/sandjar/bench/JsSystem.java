package dev.sandjar.bench;

import java.util.List;
import java.util.Map;

/**
 * One JavaScript system under test. Every call is a fresh, isolated run: nothing a run defines is
 * visible to the next one. Implementations are thread-safe unless they say otherwise.
 */
public interface JsSystem extends AutoCloseable {
    /**
     * The systems the bench's own JVM runs, in report order; {@link #create} also accepts {@link
     * GraalJit#SYSTEM}, which runs only in JVMs that {@link GraalJit} starts.
     */
    List<String> NAMES = List.of("sandjar", "sandjar-noflags", "graaljs", "rhino", "quickjs4j");

    /**
     * Sandjar in a JVM started with none of {@code Sandbox.jvmFlags()} (nor, on JDK 24 and later,
     * {@code --sun-misc-unsafe-memory-access=allow}): what a service that sets no flags gets
     * (docs/jvm-flags.md, "No flags needed").
     */
    String SANDJAR_NO_FLAGS = "sandjar-noflags";

    String name();

    /**
     * Runs a workload's function body in a fresh context and returns its result: a Java value for
     * Sandjar (through its transport), JSON text for the peers.
     */
    Object eval(String body);

    /** Injects the rows as the global {@code rows}, runs {@code return rows}, returns the copy. */
    List<Map<String, Object>> rows(List<Map<String, Object>> rows);

    /** Why this system cannot move a Uint8Array, or null when {@link #bytes} works. */
    default String bytesUnsupported() {
        return null;
    }

    /** Injects the bytes as the {@code Uint8Array} global {@code buf}, runs {@code return buf}. */
    byte[] bytes(byte[] data);

    @Override
    void close();

    /** A system sized for {@code threads} concurrent callers. */
    static JsSystem create(String name, int threads) {
        switch (name) {
            case "sandjar":
                return new SandjarSystem(threads);
            case SANDJAR_NO_FLAGS:
                return new SandjarSystem(threads, SANDJAR_NO_FLAGS);
            case "graaljs":
                return new GraalSystem(false);
            case GraalJit.SYSTEM:
                return new GraalSystem(true);
            case "rhino":
                return new RhinoSystem();
            case "quickjs4j":
                return new QuickJs4jSystem();
            default:
                throw new IllegalArgumentException("unknown system " + name);
        }
    }
}
