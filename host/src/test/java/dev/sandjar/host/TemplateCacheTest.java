package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sandbox's templates are kept per engine and go with an engine the pool discards. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TemplateCacheTest {

    @Test
    void aRetiredEnginesTemplatesAreDropped() throws InterruptedException {
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build()) {
            assertEquals(2L, sandbox.run(RunRequest.builder("return 1 + 1").build()).value());
            assertEquals(1, sandbox.templates().engines());

            // Grows the engine's memory past what a default run may use: the engine is retired.
            RunResult big =
                    sandbox.run(
                            RunRequest.builder(
                                            "const keep = [];\n"
                                                    + "for (let i = 0; i < 80; i++) keep.push(new"
                                                    + " Uint8Array(1 << 20));\n"
                                                    + "return keep.length;")
                                    .limits(Limits.builder().heapBytes(128L << 20).build())
                                    .build());
            assertEquals(80L, big.value(), () -> String.valueOf(big.error()));
            // The engine is retired after the result completes; wait for it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sandbox.templates().engines() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, sandbox.templates().engines(), "the retired engine kept its templates");

            assertEquals(3L, sandbox.run(RunRequest.builder("return 1 + 2").build()).value());
            assertEquals(1, sandbox.templates().engines(), "only the fresh engine has templates");
        }
    }

    @Test
    void closingTheSandboxDropsEveryTemplate() {
        Sandbox sandbox = Sandbox.builder().poolSize(2).build();
        try {
            sandbox.run(RunRequest.builder("return 1").build());
            assertTrue(sandbox.templates().engines() >= 1);
        } finally {
            sandbox.close();
        }
        assertEquals(0, sandbox.templates().engines());
    }
}
