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
 * ByteArrayMemory}, with two differences.
 *
 * <ul>
 *   <li>Pages exist only once written. Until then a page reads as one shared all-zero array, so an
 *       idle engine holds the few hundred KiB QuickJS actually uses, not its 16 MiB minimum. Loads
 *       read {@code pages}, where an unwritten page is {@link #ZERO_PAGE}; stores write through
 *       {@code writable}, where it is null, and the first store to a page makes it.
 *   <li>It records which 4 KiB blocks were written since the last {@link #clean()}. That makes a
 *       snapshot restore cheap: {@link #restoreDirty(MemoryImage)} rewrites only the blocks a run
 *       touched (a trivial run dirties a few dozen of the 4,096 in 16 MiB) instead of copying the
 *       whole image and zeroing the rest, and gives back the pages a big run wrote far above the
 *       image.
 * </ul>
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
    static final int BLOCKS_PER_PAGE = PAGE_SIZE / BLOCK_SIZE;

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

    /** What every page not yet written reads as; never written itself. */
    private static final byte[] ZERO_PAGE = new byte[PAGE_SIZE];

    private final int initialPages;
    private final int maximumPages;

    /** For loads: every page below nPages, unwritten ones as ZERO_PAGE. */
    private final byte[][] pages;

    /** For stores: the same arrays, but null where pages[] holds ZERO_PAGE. */
    private final byte[][] writable;

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
        this.writable = new byte[maximumPages][];
        // Rounded up to whole longs so the scan can read eight marks at a time.
        this.dirty = new byte[(maximumPages * BLOCKS_PER_PAGE + 7) & ~7];
        Arrays.fill(pages, 0, initialPages, ZERO_PAGE);
        this.nPages = initialPages;
    }

    // ---------------------------------------------------------------------------------------
    // Dirty-block tracking.

    /** Forgets every mark: the memory as it is now becomes the base later restores return to. */
    void clean() {
        Arrays.fill(dirty, 0, markedLength(), (byte) 0);
    }

    /**
     * Pages above an image's last non-zero page that a restore keeps (zeroed) when a run wrote
     * them: the room ordinary runs allocate in, so they do not make and drop pages every time.
     * Written pages above that are given back.
     */
    static final int KEPT_PAGES_ABOVE_IMAGE = 16;

    /**
     * Puts back {@code image} (the memory as it was at the last {@link #clean()}) in every block
     * written since, and cleans. A written page more than {@link #KEPT_PAGES_ABOVE_IMAGE} above the
     * image is given back rather than zeroed. Returns the number of pages it touched.
     */
    int restoreDirty(MemoryImage image) {
        int limit = markedLength();
        int touched = 0;
        for (int first = 0; first < limit; first += BLOCKS_PER_PAGE) {
            if ((long) DIRTY_WORDS.get(dirty, first) == 0L
                    && (long) DIRTY_WORDS.get(dirty, first + 8) == 0L) {
                continue;
            }
            touched++;
            int page = first / BLOCKS_PER_PAGE;
            if (page >= image.extentPages() + KEPT_PAGES_ABOVE_IMAGE) {
                release(page);
                Arrays.fill(dirty, first, first + BLOCKS_PER_PAGE, (byte) 0);
                continue;
            }
            for (int b = first; b < first + BLOCKS_PER_PAGE; b++) {
                if (dirty[b] != 0) {
                    dirty[b] = 0;
                    putBlock(b, image.block(b));
                }
            }
        }
        return touched;
    }

    /**
     * Makes the memory exactly {@code image} (up to its size; it never shrinks), whatever it held,
     * and cleans.
     */
    void restoreAll(MemoryImage image) {
        for (int page = 0; page < nPages; page++) {
            if (image.pageIsEmpty(page)) {
                release(page);
                continue;
            }
            for (int b = page * BLOCKS_PER_PAGE; b < (page + 1) * BLOCKS_PER_PAGE; b++) {
                putBlock(b, image.block(b));
            }
        }
        clean();
    }

    /** The memory as it is now, holding only its non-zero blocks. */
    MemoryImage image() {
        byte[][] blocks = new byte[nPages * BLOCKS_PER_PAGE][];
        for (int page = 0; page < nPages; page++) {
            byte[] data = writable[page];
            if (data == null) {
                continue;
            }
            for (int off = 0; off < PAGE_SIZE; off += BLOCK_SIZE) {
                if (Arrays.mismatch(data, off, off + BLOCK_SIZE, ZERO_PAGE, 0, BLOCK_SIZE) >= 0) {
                    blocks[(page * PAGE_SIZE + off) >>> BLOCK_SHIFT] =
                            Arrays.copyOfRange(data, off, off + BLOCK_SIZE);
                }
            }
        }
        return new MemoryImage(blocks);
    }

    /** Pages that hold an array of their own (written at least once since last dropped). */
    int allocatedPages() {
        int n = 0;
        for (int page = 0; page < nPages; page++) {
            n += writable[page] != null ? 1 : 0;
        }
        return n;
    }

    private void putBlock(int block, byte[] data) {
        int page = block / BLOCKS_PER_PAGE;
        int off = (block << BLOCK_SHIFT) & PAGE_MASK;
        if (data != null) {
            System.arraycopy(data, 0, writablePage(page), off, BLOCK_SIZE);
        } else if (writable[page] != null) {
            Arrays.fill(writable[page], off, off + BLOCK_SIZE, (byte) 0);
        }
    }

    private void release(int page) {
        pages[page] = ZERO_PAGE;
        writable[page] = null;
    }

    /** The page's own array, made on its first store. */
    private byte[] writablePage(int page) {
        byte[] data = writable[page];
        if (data == null) {
            data = new byte[PAGE_SIZE];
            writable[page] = data;
            pages[page] = data;
        }
        return data;
    }

    /**
     * The page a store goes to when it has no array yet: made now if the store is within bounds (an
     * explicit branch, not a caught null pointer: a trap in compiled guest code would send the
     * whole interpreter-loop frame back to the bytecode interpreter, every time).
     */
    private byte[] pageForStore(int addr, int size) {
        checkBounds(addr, size, sizeInBytes());
        return writablePage(addr >>> PAGE_SHIFT);
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
        Arrays.fill(pages, before, (int) after, ZERO_PAGE);
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
            System.arraycopy(data, offset, writablePage(addr >>> PAGE_SHIFT), off, chunk);
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
            Arrays.fill(writablePage(addr >>> PAGE_SHIFT), off, off + chunk, value);
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
                        pages[src >>> PAGE_SHIFT],
                        soff,
                        writablePage(dest >>> PAGE_SHIFT),
                        doff,
                        chunk);
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
                        writablePage((dEnd - 1) >>> PAGE_SHIFT),
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
            byte[] page = writable[addr >>> PAGE_SHIFT];
            if (page == null) {
                page = pageForStore(addr, 1);
            }
            page[addr & PAGE_MASK] = data;
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
                byte[] page = writable[addr >>> PAGE_SHIFT];
                if (page == null) {
                    page = pageForStore(addr, 2);
                }
                SHORTS.set(page, off, data);
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
                byte[] page = writable[addr >>> PAGE_SHIFT];
                if (page == null) {
                    page = pageForStore(addr, 4);
                }
                INTS.set(page, off, data);
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
                byte[] page = writable[addr >>> PAGE_SHIFT];
                if (page == null) {
                    page = pageForStore(addr, 8);
                }
                LONGS.set(page, off, data);
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
                byte[] page = writable[addr >>> PAGE_SHIFT];
                if (page == null) {
                    page = pageForStore(addr, 4);
                }
                FLOATS.set(page, off, data);
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
                byte[] page = writable[addr >>> PAGE_SHIFT];
                if (page == null) {
                    page = pageForStore(addr, 8);
                }
                DOUBLES.set(page, off, data);
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
