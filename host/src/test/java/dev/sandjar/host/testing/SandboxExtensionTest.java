package dev.sandjar.host.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared-sandbox extension: one sandbox per class, handed to whoever asks. */
class SandboxExtensionTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    @Test
    void aSandboxParameterIsTheClassSandboxAsConfigured(Sandbox injected) {
        assertSame(SANDBOX.sandbox(), injected);
        assertEquals(1, injected.poolSize());
        assertEquals(2L, injected.run(RunRequest.builder("return 1 + 1").build()).valueOrThrow());
    }

    @Nested
    class InANestedClass {
        @Test
        void aNestedClassSharesTheEnclosingSandbox(Sandbox injected) {
            assertSame(SANDBOX.sandbox(), injected);
        }
    }
}
