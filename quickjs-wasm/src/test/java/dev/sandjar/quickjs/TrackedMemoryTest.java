package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.runtime.WasmRuntimeException;
import dev.sandjar.quickjs.internal.RawAccess;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The tracked memory behaves as a plain byte array (checked against one, operation by operation),
 * and restoring its dirty blocks always returns it to the image it was cleaned at.
 */
class TrackedMemoryTest {
    private static final int PAGE = 65536;

    @Test
    void everyStoreMatchesAPlainArrayAndRestoreReturnsToTheImage() {
        Random random = new Random(42);
        TrackedMemory memory = new TrackedMemory(3, 8);
        byte[] model = new byte[3 * PAGE];
        // A base image with data scattered over the first two pages, zero above.
        for (int i = 0; i < 2000; i++) {
            int at = random.nextInt(2 * PAGE);
            byte v = (byte) random.nextInt(256);
            memory.writeByte(at, v);
            model[at] = v;
        }
        MemoryImage image = memory.image();
        assertArrayEquals(model, image.toArray(model.length));
        memory.clean();
        assertEquals(0, memory.dirtyBlocks());

        for (int round = 0; round < 50; round++) {
            byte[] now = model.clone();
            if (round % 10 == 9) {
                assertEquals(model.length / PAGE, memory.grow(1));
                now = Arrays.copyOf(now, now.length + PAGE);
                model = Arrays.copyOf(model, model.length + PAGE);
            }
            for (int op = 0; op < 200; op++) {
                apply(memory, now, random);
            }
            assertArrayEquals(now, memory.readBytes(0, now.length), "round " + round);
            int touched = memory.restoreDirty(image);
            assertTrue(
                    touched > 0 && touched <= now.length / TrackedMemory.BLOCK_SIZE,
                    "blocks touched " + touched);
            byte[] expected = image.toArray(now.length);
            assertArrayEquals(expected, memory.readBytes(0, now.length), "restored " + round);
            assertEquals(0, memory.dirtyBlocks());
        }
        // A full restore from any state lands on the image too.
        memory.fill((byte) 7, 0, memory.pages() * PAGE);
        memory.restoreAll(image);
        assertArrayEquals(
                image.toArray(memory.pages() * PAGE), memory.readBytes(0, memory.pages() * PAGE));
    }

    @Test
    void aRestoreGivesBackPagesWrittenFarAboveTheImageAndKeepsTheRest() {
        TrackedMemory memory = new TrackedMemory(64, 64);
        memory.writeI32(100, 7);
        MemoryImage image = memory.image();
        memory.clean();
        int near = 1 + TrackedMemory.KEPT_PAGES_ABOVE_IMAGE - 1;
        int far = 1 + TrackedMemory.KEPT_PAGES_ABOVE_IMAGE;
        memory.writeLong(near * PAGE + 8, -1L);
        memory.writeByte(far * PAGE + 8, (byte) 1);
        memory.writeByte(63 * PAGE, (byte) 1);
        memory.writeI32(100, 8);
        assertEquals(4, memory.allocatedBlocks());
        memory.restoreDirty(image);
        assertEquals(2, memory.allocatedBlocks(), "block 0 and the near block stay, zeroed");
        assertEquals(7, memory.readInt(100));
        assertEquals(0L, memory.readLong(near * PAGE + 8));
        assertEquals(0, memory.read(far * PAGE + 8));
    }

    @Test
    void unwrittenPagesReadAsZeroAndAreMadeOnTheFirstStore() {
        TrackedMemory memory = new TrackedMemory(4, 8);
        assertEquals(0, memory.allocatedBlocks());
        assertEquals(0L, memory.readLong(3 * PAGE + 100));
        memory.writeI32(2 * PAGE + 8, 5);
        memory.writeShort(2 * PAGE + 16, (short) 6);
        assertEquals(1, memory.allocatedBlocks());
        assertEquals(5, memory.readInt(2 * PAGE + 8));
        assertEquals(0, memory.readInt(PAGE + 8), "other pages are untouched");
        assertEquals(4, memory.grow(2));
        assertEquals(0, memory.read(5 * PAGE + 1));
        memory.copy(5 * PAGE, 2 * PAGE, 32);
        assertEquals(5, memory.readInt(5 * PAGE + 8));
        assertEquals(2, memory.allocatedBlocks());
    }

    /** One random store of every kind, at addresses that often straddle blocks and pages. */
    private static void apply(TrackedMemory m, byte[] model, Random random) {
        int size = model.length;
        int at = random.nextBoolean() ? random.nextInt(size - 16) : nearBoundary(random, size);
        switch (random.nextInt(9)) {
            case 0 -> {
                byte v = (byte) random.nextInt();
                m.writeByte(at, v);
                model[at] = v;
            }
            case 1 -> {
                short v = (short) random.nextInt();
                m.writeShort(at, v);
                put(model, at, v, 2);
            }
            case 2 -> {
                int v = random.nextInt();
                m.writeI32(at, v);
                put(model, at, v, 4);
            }
            case 3 -> {
                long v = random.nextLong();
                m.writeLong(at, v);
                put(model, at, v, 8);
            }
            case 4 -> {
                float v = random.nextFloat();
                m.writeF32(at, v);
                put(model, at, Float.floatToRawIntBits(v), 4);
            }
            case 5 -> {
                double v = random.nextDouble();
                m.writeF64(at, v);
                put(model, at, Double.doubleToRawLongBits(v), 8);
            }
            case 6 -> {
                int n = Math.min(random.nextInt(3 * TrackedMemory.BLOCK_SIZE), size - at);
                byte v = (byte) random.nextInt();
                m.fill(v, at, at + n);
                Arrays.fill(model, at, at + n, v);
            }
            case 7 -> {
                int n = Math.min(random.nextInt(PAGE + 100), size - at);
                byte[] data = new byte[n + 5];
                random.nextBytes(data);
                m.write(at, data, 5, n);
                System.arraycopy(data, 5, model, at, n);
            }
            default -> {
                // Overlapping copies in both directions, across pages.
                int n = random.nextInt(PAGE + 300);
                int src = random.nextInt(size - n);
                int dest = Math.max(0, Math.min(size - n, src + random.nextInt(2001) - 1000));
                m.copy(dest, src, n);
                System.arraycopy(model, src, model, dest, n);
            }
        }
    }

    private static int nearBoundary(Random random, int size) {
        int block =
                TrackedMemory.BLOCK_SIZE
                        * (1 + random.nextInt(size / TrackedMemory.BLOCK_SIZE - 1));
        return Math.min(size - 16, block - 1 - random.nextInt(7));
    }

    private static void put(byte[] model, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            model[at + i] = (byte) (v >>> (8 * i));
        }
    }

    /** The widths of the typed accesses, in bytes. */
    private static final int[] WIDTHS = {1, 2, 4, 8};

    /**
     * Every typed load and store, at every offset within 16 bytes of each end of a block (so within
     * one block, across two, and out of bounds past the memory's end), against a byte model: the
     * fast paths' own tests are the bounds check, and with {@link RawAccess} the only one between a
     * guest address and the JVM's heap, so a mistake must show here as a wrong byte or a missing
     * trap. The memory is cleaned now and then so a store meets both clean blocks (the slow path)
     * and dirty ones (the fast path). The class runs twice in the build: once on the path the JVM
     * picks and once with {@code sandjar.memory.access=varhandle}.
     */
    @Test
    void everyTypedAccessAtEveryOffsetNearABlockEndMatchesTheModel() {
        int pages = 2;
        int size = pages * PAGE;
        TrackedMemory memory = new TrackedMemory(pages, pages);
        byte[] model = new byte[size];
        Random random = new Random(7);
        int checked = 0;
        for (int edge = 0; edge <= size; edge += TrackedMemory.BLOCK_SIZE) {
            for (int at = edge - 16; at < edge + 16; at++) {
                for (int width : WIDTHS) {
                    if (random.nextInt(4) == 0) {
                        memory.clean();
                    }
                    long value = random.nextLong();
                    boolean inBounds = at >= 0 && at <= size - width;
                    if (inBounds) {
                        store(memory, at, width, value);
                        put(model, at, value, width);
                        for (int w : WIDTHS) {
                            if (at <= size - w) {
                                assertEquals(
                                        get(model, at, w),
                                        load(memory, at, w),
                                        "load of "
                                                + w
                                                + " at "
                                                + at
                                                + " after a store of "
                                                + width);
                            }
                        }
                    } else {
                        int a = at;
                        assertThrows(
                                WasmRuntimeException.class,
                                () -> store(memory, a, width, value),
                                "store of " + width + " at " + a);
                        assertThrows(
                                WasmRuntimeException.class,
                                () -> load(memory, a, width),
                                "load of " + width + " at " + a);
                    }
                    checked++;
                }
            }
        }
        assertArrayEquals(model, memory.readBytes(0, size), "the whole memory");
        assertEquals(33 * 32 * WIDTHS.length, checked);
        // Addresses far out: negative ones shift to a block index far above the memory.
        for (int at :
                new int[] {Integer.MIN_VALUE, -1, -4096, size, size + 4096, Integer.MAX_VALUE}) {
            for (int width : WIDTHS) {
                assertThrows(WasmRuntimeException.class, () -> store(memory, at, width, 1));
                assertThrows(WasmRuntimeException.class, () -> load(memory, at, width));
            }
        }
        assertArrayEquals(model, memory.readBytes(0, size), "unchanged by the traps");
    }

    /** Which path the typed accesses take is what RawAccess says it is for this JVM. */
    @Test
    void theUnsafePathIsTakenWhereItMayBe() {
        String choice = System.getProperty(RawAccess.PROPERTY, "auto");
        boolean allowed =
                !choice.equals("varhandle")
                        && java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
                        && (System.getProperty("os.arch").equals("amd64")
                                || System.getProperty("os.arch").equals("aarch64"))
                        && (Runtime.version().feature() < 24
                                || "allow"
                                        .equals(
                                                System.getProperty(
                                                        "sun.misc.unsafe.memory.access")));
        assertEquals(allowed, RawAccess.ENABLED, "why not: " + RawAccess.REASON);
        assertEquals(allowed, RawAccess.REASON == null);
        assertTrue(allowed == (RawAccess.BYTE_ARRAY_BASE > 0), "base " + RawAccess.BYTE_ARRAY_BASE);
    }

    private static void store(TrackedMemory m, int at, int width, long v) {
        switch (width) {
            case 1 -> m.writeByte(at, (byte) v);
            case 2 -> m.writeShort(at, (short) v);
            case 4 -> m.writeI32(at, (int) v);
            default -> m.writeLong(at, v);
        }
    }

    /** The typed load of {@code width} bytes, sign-extended as the memory returns it. */
    private static long load(TrackedMemory m, int at, int width) {
        return switch (width) {
            case 1 -> m.read(at);
            case 2 -> m.readShort(at);
            case 4 -> m.readInt(at);
            default -> m.readLong(at);
        };
    }

    /** The model's little-endian value of {@code width} bytes at {@code at}, sign-extended. */
    private static long get(byte[] model, int at, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (model[at + i] & 0xFFL);
        }
        int shift = 64 - 8 * width;
        return (v << shift) >> shift;
    }

    @Test
    void outOfBoundsAccessIsATrapNotAJavaException() {
        TrackedMemory memory = new TrackedMemory(1, 2);
        assertThrows(WasmRuntimeException.class, () -> memory.writeI32(PAGE - 2, 1));
        assertThrows(WasmRuntimeException.class, () -> memory.writeByte(PAGE, (byte) 1));
        assertThrows(WasmRuntimeException.class, () -> memory.readLong(-8));
        assertThrows(WasmRuntimeException.class, () -> memory.readInt(PAGE - 1));
        assertThrows(WasmRuntimeException.class, () -> memory.fill((byte) 1, PAGE - 1, PAGE + 1));
        assertThrows(WasmRuntimeException.class, () -> memory.copy(0, PAGE - 4, 8));
        assertThrows(WasmRuntimeException.class, () -> memory.write(PAGE - 1, new byte[2], 0, 2));
        assertEquals(1, memory.grow(1));
        memory.writeI32(PAGE - 2, 0x01020304);
        assertEquals(0x01020304, memory.readInt(PAGE - 2));
        assertEquals(-1, memory.grow(1), "growth past the maximum is refused");
    }
}
