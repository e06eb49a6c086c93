package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.ConstantEvaluators;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.runtime.WasmRuntimeException;
import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.wasm.UninstantiableException;
import com.dylibso.chicory.wasm.types.ActiveDataSegment;
import com.dylibso.chicory.wasm.types.DataSegment;
import com.dylibso.chicory.wasm.types.PassiveDataSegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The engine's linear memory: 64 KiB pages of {@code byte[]}, like Chicory's own {@code
 * ByteArrayMemory}, plus a record of which 4 KiB blocks were written since the last {@link
 * #clean()}. That record is what makes a snapshot restore cheap: {@link #restoreDirty(byte[])}
 * rewrites only the blocks a run touched (a trivial run dirties a few dozen of the 4,096 in 16
 * MiB), instead of copying the whole image and zeroing everything above it.
 *
 * <p>Every path that changes memory marks its blocks: the typed stores the compiled guest code
 * makes, bulk {@code write}, {@code fill} and {@code copy}, data segments, and the atomics (which
 * fall back to the plain stores). A mark costs one byte store next to the write it records; the
 * record is a byte per block, so marking needs no read-modify-write.
 *
 * <p>Not shared, not thread-safe: the engine thread is its only user (the engine reads {@link
 * #pages()} from other threads through its own volatile copy).
 */
final class TrackedMemory implements Memory {
    static final int BLOCK_SHIFT = 12;
    static final int BLOCK_SIZE = 1 << BLOCK_SHIFT;
    private static final int PAGE_SHIFT = 16;
    private static final int PAGE_MASK = PAGE_SIZE - 1;
    private static final int BLOCKS_PER_PAGE = PAGE_SIZE / BLOCK_SIZE;

    private static final VarHandle SHORTS =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle FLOATS =
            MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle DOUBLES =
            MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle DIRTY_WORDS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final int initialPages;
    private final int maximumPages;
    private final byte[][] pages;

    /** One byte per 4 KiB block of the maximum memory: non-zero when written since clean(). */
    private final byte[] dirty;

    private int nPages;
    private DataSegment[] dataSegments;

    TrackedMemory(int initialPages, int maximumPages) {
        // Chicory's own ceiling: 32,767 pages keep every address and size within an int.
        maximumPages = Math.min(maximumPages, RUNTIME_MAX_PAGES);
        if (initialPages < 0 || maximumPages < initialPages) {
            throw new IllegalArgumentException(
                    "memory pages: initial " + initialPages + ", maximum " + maximumPages);
        }
        this.initialPages = initialPages;
        this.maximumPages = maximumPages;
        this.pages = new byte[maximumPages][];
        // Rounded up to whole longs so the scan can read eight marks at a time.
        this.dirty = new byte[(maximumPages * BLOCKS_PER_PAGE + 7) & ~7];
        for (int i = 0; i < initialPages; i++) {
            pages[i] = new byte[PAGE_SIZE];
        }
        this.nPages = initialPages;
    }

    // ---------------------------------------------------------------------------------------
    // Dirty-block tracking.

    /** Forgets every mark: the memory as it is now becomes the base later restores return to. */
    void clean() {
        Arrays.fill(dirty, 0, markedLength(), (byte) 0);
    }

    /**
     * Puts back {@code image} (the memory as it was at the last {@link #clean()}, up to its last
     * non-zero byte; everything above it was zero) in every block written since, zeroes the written
     * blocks above the image, and cleans. Returns the number of blocks rewritten.
     */
    int restoreDirty(byte[] image) {
        int limit = markedLength();
        int rewritten = 0;
        for (int word = 0; word < limit; word += 8) {
            if ((long) DIRTY_WORDS.get(dirty, word) == 0L) {
                continue;
            }
            for (int b = word; b < word + 8; b++) {
                if (dirty[b] == 0) {
                    continue;
                }
                dirty[b] = 0;
                rewritten++;
                byte[] page = pages[b / BLOCKS_PER_PAGE];
                int start = b << BLOCK_SHIFT;
                int off = start & PAGE_MASK;
                int fromImage = Math.max(0, Math.min(BLOCK_SIZE, image.length - start));
                if (fromImage > 0) {
                    System.arraycopy(image, start, page, off, fromImage);
                }
                if (fromImage < BLOCK_SIZE) {
                    Arrays.fill(page, off + fromImage, off + BLOCK_SIZE, (byte) 0);
                }
            }
        }
        return rewritten;
    }

    /** Blocks marked now (for tests and statistics). */
    int dirtyBlocks() {
        int n = 0;
        for (int b = 0, limit = markedLength(); b < limit; b++) {
            n += dirty[b] != 0 ? 1 : 0;
        }
        return n;
    }

    private int markedLength() {
        return Math.min(dirty.length, (nPages * BLOCKS_PER_PAGE + 7) & ~7);
    }

    private void mark(int addr, int size) {
        int first = addr >>> BLOCK_SHIFT;
        int last = (addr + size - 1) >>> BLOCK_SHIFT;
        Arrays.fill(dirty, first, last + 1, (byte) 1);
    }

    // ---------------------------------------------------------------------------------------
    // Size.

    @Override
    public int pages() {
        return nPages;
    }

    @Override
    public int grow(int delta) {
        int before = nPages;
        long after = (long) before + delta;
        if (delta < 0 || after > maximumPages) {
            return -1;
        }
        for (int i = before; i < after; i++) {
            pages[i] = new byte[PAGE_SIZE];
        }
        nPages = (int) after;
        return before;
    }

    @Override
    public int initialPages() {
        return initialPages;
    }

    @Override
    public int maximumPages() {
        return maximumPages;
    }

    @Override
    public boolean shared() {
        return false;
    }

    private int sizeInBytes() {
        return nPages * PAGE_SIZE;
    }

    // ---------------------------------------------------------------------------------------
    // Threads: this memory is never shared, so waiting is refused and there is no one to wake.
    // Chicory 1.7.5 marks these for removal but still declares them abstract: they must exist.

    @Override
    @SuppressWarnings("removal")
    public Object lock(int address) {
        return this;
    }

    @Override
    @SuppressWarnings("removal")
    public int waitOn(int address, int expected, long timeout) {
        throw new ChicoryException("Attempt to wait on a non-shared memory, not supported.");
    }

    @Override
    @SuppressWarnings("removal")
    public int waitOn(int address, long expected, long timeout) {
        throw new ChicoryException("Attempt to wait on a non-shared memory, not supported.");
    }

    @Override
    @SuppressWarnings("removal")
    public int notify(int address, int count) {
        return 0;
    }

    // ---------------------------------------------------------------------------------------
    // Data segments.

    @Override
    public void initialize(Instance instance, DataSegment[] segments) {
        this.dataSegments = segments;
        if (segments == null) {
            return;
        }
        for (DataSegment s : segments) {
            if (s instanceof ActiveDataSegment active) {
                int offset =
                        (int)
                                ConstantEvaluators.computeConstantValue(
                                        instance, active.offsetInstructions())[0];
                byte[] data = active.data();
                if (offset < 0 || (long) offset + data.length > sizeInBytes()) {
                    throw new UninstantiableException(
                            "out of bounds memory access: data segment at "
                                    + offset
                                    + " of "
                                    + data.length
                                    + " bytes, memory is "
                                    + sizeInBytes());
                }
                write(offset, data, 0, data.length);
            } else if (!(s instanceof PassiveDataSegment)) {
                throw new ChicoryException("Data segment should be active or passive: " + s);
            }
        }
    }

    @Override
    public void initPassiveSegment(int segmentId, int dest, int offset, int size) {
        write(dest, dataSegments[segmentId].data(), offset, size);
    }

    @Override
    public void drop(int segment) {
        dataSegments[segment] = PassiveDataSegment.EMPTY;
    }

    // ---------------------------------------------------------------------------------------
    // Bulk access.

    private void checkBounds(int addr, int size, int limit) {
        if (addr < 0 || size < 0 || addr > limit || (size > 0 && (long) addr + size > limit)) {
            throw new WasmRuntimeException(
                    "out of bounds memory access: attempted to access address: "
                            + addr
                            + " but limit is: "
                            + limit
                            + " and size: "
                            + size);
        }
    }

    private RuntimeException outOfBounds(RuntimeException e, int addr, int size) {
        if (e instanceof IndexOutOfBoundsException
                || e instanceof IllegalArgumentException
                || e instanceof NullPointerException) {
            return new WasmRuntimeException(
                    "out of bounds memory access: attempted to access address: "
                            + addr
                            + " but limit is: "
                            + sizeInBytes()
                            + " and size: "
                            + size);
        }
        return e;
    }

    @Override
    public void write(int addr, byte[] data, int offset, int size) {
        checkBounds(offset, size, data.length);
        checkBounds(addr, size, sizeInBytes());
        if (size == 0) {
            return;
        }
        mark(addr, size);
        while (size > 0) {
            int off = addr & PAGE_MASK;
            int chunk = Math.min(size, PAGE_SIZE - off);
            System.arraycopy(data, offset, pages[addr >>> PAGE_SHIFT], off, chunk);
            addr += chunk;
            offset += chunk;
            size -= chunk;
        }
    }

    @Override
    public byte[] readBytes(int addr, int len) {
        checkBounds(addr, len, sizeInBytes());
        byte[] out = new byte[len];
        int at = 0;
        while (at < len) {
            int off = addr & PAGE_MASK;
            int chunk = Math.min(len - at, PAGE_SIZE - off);
            System.arraycopy(pages[addr >>> PAGE_SHIFT], off, out, at, chunk);
            addr += chunk;
            at += chunk;
        }
        return out;
    }

    @Override
    public void zero() {
        fill((byte) 0, 0, sizeInBytes());
    }

    @Override
    public void fill(byte value, int fromIndex, int toIndex) {
        int size = toIndex - fromIndex;
        checkBounds(fromIndex, size, sizeInBytes());
        if (size <= 0) {
            return;
        }
        mark(fromIndex, size);
        int addr = fromIndex;
        while (size > 0) {
            int off = addr & PAGE_MASK;
            int chunk = Math.min(size, PAGE_SIZE - off);
            Arrays.fill(pages[addr >>> PAGE_SHIFT], off, off + chunk, value);
            addr += chunk;
            size -= chunk;
        }
    }

    @Override
    public void copy(int dest, int src, int size) {
        int limit = sizeInBytes();
        checkBounds(dest, size, limit);
        checkBounds(src, size, limit);
        if (size == 0) {
            return;
        }
        mark(dest, size);
        if (dest <= src || dest >= src + size) {
            // Forward is safe: the destination never overtakes unread source bytes.
            while (size > 0) {
                int doff = dest & PAGE_MASK;
                int soff = src & PAGE_MASK;
                int chunk = Math.min(size, PAGE_SIZE - Math.max(doff, soff));
                System.arraycopy(
                        pages[src >>> PAGE_SHIFT], soff, pages[dest >>> PAGE_SHIFT], doff, chunk);
                dest += chunk;
                src += chunk;
                size -= chunk;
            }
        } else {
            // Overlapping with the destination above the source: copy from the end.
            int dEnd = dest + size;
            int sEnd = src + size;
            while (size > 0) {
                int dTail = ((dEnd - 1) & PAGE_MASK) + 1;
                int sTail = ((sEnd - 1) & PAGE_MASK) + 1;
                int chunk = Math.min(size, Math.min(dTail, sTail));
                System.arraycopy(
                        pages[(sEnd - 1) >>> PAGE_SHIFT],
                        sTail - chunk,
                        pages[(dEnd - 1) >>> PAGE_SHIFT],
                        dTail - chunk,
                        chunk);
                dEnd -= chunk;
                sEnd -= chunk;
                size -= chunk;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Typed stores: each marks the block(s) it wrote.

    @Override
    public void writeByte(int addr, byte data) {
        try {
            pages[addr >>> PAGE_SHIFT][addr & PAGE_MASK] = data;
            dirty[addr >>> BLOCK_SHIFT] = 1;
        } catch (RuntimeException e) {
            throw outOfBounds(e, addr, 1);
        }
    }

    @Override
    public void writeShort(int addr, short data) {
        int off = addr & PAGE_MASK;
        if (off + 2 <= PAGE_SIZE) {
            try {
                SHORTS.set(pages[addr >>> PAGE_SHIFT], off, data);
                dirty[addr >>> BLOCK_SHIFT] = 1;
                dirty[(addr + 1) >>> BLOCK_SHIFT] = 1;
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 2);
            }
        } else {
            checkBounds(addr, 2, sizeInBytes());
            writeByte(addr, (byte) data);
            writeByte(addr + 1, (byte) (data >>> 8));
        }
    }

    @Override
    public void writeI32(int addr, int data) {
        int off = addr & PAGE_MASK;
        if (off + 4 <= PAGE_SIZE) {
            try {
                INTS.set(pages[addr >>> PAGE_SHIFT], off, data);
                dirty[addr >>> BLOCK_SHIFT] = 1;
                dirty[(addr + 3) >>> BLOCK_SHIFT] = 1;
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 4);
            }
        } else {
            checkBounds(addr, 4, sizeInBytes());
            for (int i = 0; i < 4; i++) {
                writeByte(addr + i, (byte) (data >>> (8 * i)));
            }
        }
    }

    @Override
    public void writeLong(int addr, long data) {
        int off = addr & PAGE_MASK;
        if (off + 8 <= PAGE_SIZE) {
            try {
                LONGS.set(pages[addr >>> PAGE_SHIFT], off, data);
                dirty[addr >>> BLOCK_SHIFT] = 1;
                dirty[(addr + 7) >>> BLOCK_SHIFT] = 1;
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 8);
            }
        } else {
            checkBounds(addr, 8, sizeInBytes());
            for (int i = 0; i < 8; i++) {
                writeByte(addr + i, (byte) (data >>> (8 * i)));
            }
        }
    }

    @Override
    public void writeF32(int addr, float data) {
        int off = addr & PAGE_MASK;
        if (off + 4 <= PAGE_SIZE) {
            try {
                FLOATS.set(pages[addr >>> PAGE_SHIFT], off, data);
                dirty[addr >>> BLOCK_SHIFT] = 1;
                dirty[(addr + 3) >>> BLOCK_SHIFT] = 1;
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 4);
            }
        } else {
            writeI32(addr, Float.floatToRawIntBits(data));
        }
    }

    @Override
    public void writeF64(int addr, double data) {
        int off = addr & PAGE_MASK;
        if (off + 8 <= PAGE_SIZE) {
            try {
                DOUBLES.set(pages[addr >>> PAGE_SHIFT], off, data);
                dirty[addr >>> BLOCK_SHIFT] = 1;
                dirty[(addr + 7) >>> BLOCK_SHIFT] = 1;
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 8);
            }
        } else {
            writeLong(addr, Double.doubleToRawLongBits(data));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Typed loads.

    @Override
    public byte read(int addr) {
        try {
            return pages[addr >>> PAGE_SHIFT][addr & PAGE_MASK];
        } catch (RuntimeException e) {
            throw outOfBounds(e, addr, 1);
        }
    }

    @Override
    public short readShort(int addr) {
        int off = addr & PAGE_MASK;
        if (off + 2 <= PAGE_SIZE) {
            try {
                return (short) SHORTS.get(pages[addr >>> PAGE_SHIFT], off);
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 2);
            }
        }
        return (short) ((read(addr) & 0xFF) | ((read(addr + 1) & 0xFF) << 8));
    }

    @Override
    public long readU16(int addr) {
        return readShort(addr) & 0xFFFFL;
    }

    @Override
    public int readInt(int addr) {
        int off = addr & PAGE_MASK;
        if (off + 4 <= PAGE_SIZE) {
            try {
                return (int) INTS.get(pages[addr >>> PAGE_SHIFT], off);
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 4);
            }
        }
        int v = 0;
        for (int i = 3; i >= 0; i--) {
            v = (v << 8) | (read(addr + i) & 0xFF);
        }
        return v;
    }

    @Override
    public long readLong(int addr) {
        int off = addr & PAGE_MASK;
        if (off + 8 <= PAGE_SIZE) {
            try {
                return (long) LONGS.get(pages[addr >>> PAGE_SHIFT], off);
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 8);
            }
        }
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (read(addr + i) & 0xFFL);
        }
        return v;
    }

    @Override
    public long readF32(int addr) {
        return readInt(addr);
    }

    @Override
    public float readFloat(int addr) {
        int off = addr & PAGE_MASK;
        if (off + 4 <= PAGE_SIZE) {
            try {
                return (float) FLOATS.get(pages[addr >>> PAGE_SHIFT], off);
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 4);
            }
        }
        return Float.intBitsToFloat(readInt(addr));
    }

    @Override
    public long readF64(int addr) {
        return readLong(addr);
    }

    @Override
    public double readDouble(int addr) {
        int off = addr & PAGE_MASK;
        if (off + 8 <= PAGE_SIZE) {
            try {
                return (double) DOUBLES.get(pages[addr >>> PAGE_SHIFT], off);
            } catch (RuntimeException e) {
                throw outOfBounds(e, addr, 8);
            }
        }
        return Double.longBitsToDouble(readLong(addr));
    }
}
