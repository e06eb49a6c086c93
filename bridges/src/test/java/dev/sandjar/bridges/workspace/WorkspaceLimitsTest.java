package dev.sandjar.bridges.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.host.InvalidRequestException;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

class WorkspaceLimitsTest {
    private static final long MIB = 1 << 20;

    @Test
    void defaults() {
        WorkspaceLimits d = WorkspaceLimits.defaults();
        assertEquals(16 * MIB, d.maxReadBytes());
        assertEquals(16 * MIB, d.maxWriteBytes());
        assertEquals(256 * MIB, d.maxCopyBytes());
        assertEquals(256 * MIB, d.maxTotalReadBytes());
        assertEquals(256 * MIB, d.maxTotalWriteBytes());
        assertEquals(10_000, d.maxListEntries());
        assertEquals(10_000, d.maxWorkspaceEntries());
        assertEquals(1024 * MIB, d.maxWorkspaceBytes());
    }

    @Test
    void eachValueIsValidatedWhereItIsSetAndTheMessageNamesValueAndBound() {
        WorkspaceLimits.Builder b = WorkspaceLimits.builder();
        assertRange("maxReadBytes", 256 * MIB, b::withMaxReadBytes);
        assertRange("maxWriteBytes", 256 * MIB, b::withMaxWriteBytes);
        assertRange("maxCopyBytes", 2048 * MIB, b::withMaxCopyBytes);
        assertRange("maxTotalReadBytes", 2048 * MIB, b::withMaxTotalReadBytes);
        assertRange("maxTotalWriteBytes", 2048 * MIB, b::withMaxTotalWriteBytes);
        assertRange("maxListEntries", 1_000_000, v -> b.withMaxListEntries((int) v));
        assertRange("maxWorkspaceEntries", 1_000_000, b::withMaxWorkspaceEntries);
        assertRange("maxWorkspaceBytes", 64 * 1024 * MIB, b::withMaxWorkspaceBytes);
        WorkspaceLimits built = b.build();
        assertEquals(256 * MIB, built.maxReadBytes());
        assertEquals(1_000_000, built.maxListEntries());
    }

    private static void assertRange(String name, long ceiling, LongConsumer setter) {
        setter.accept(0);
        setter.accept(ceiling);
        InvalidRequestException over =
                assertThrows(InvalidRequestException.class, () -> setter.accept(ceiling + 1));
        assertEquals(
                name + " (" + (ceiling + 1) + ") must be between 0 and " + ceiling,
                over.getMessage());
        InvalidRequestException negative =
                assertThrows(InvalidRequestException.class, () -> setter.accept(-1));
        assertEquals(name + " (-1) must be between 0 and " + ceiling, negative.getMessage());
    }
}
