package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.ConstantEvaluators;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.WasmRuntimeException;
import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.wasm.UninstantiableException;
import com.dylibso.chicory.wasm.types.ActiveDataSegment;
import com.dylibso.chicory.wasm.types.DataSegment;
import com.dylibso.chicory.wasm.types.PassiveDataSegment;
import dev.sandjar.quickjs.internal.BlockMemory;
import dev.sandjar.quickjs.internal.RawAccess;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The engine's linear memory: 4 KiB blocks of {@code byte[]}, like Chicory's own {@code
 * ByteArrayMemory} (which uses 64 KiB pages), with two differences.
 *
 * <ul>
 *   <li>Blocks exist only once written. Until then a block reads as one shared all-zero array, so
 *       an idle engine holds the few hundred KiB QuickJS actually uses, not its 16 MiB minimum.
 *   <li>It knows which blocks were written since the last {@link #clean()}. That makes a snapshot
 *       restore cheap: {@link #restoreDirty(MemoryImage)} rewrites only the blocks a run touched (a
 *       trivial run dirties a few dozen of the 4,096 in 16 MiB) instead of copying the whole image
 *       and zeroing the rest, and gives back the blocks a big run wrote far above the image.
 * </ul>
 *
 * <p>Both come from one pair of arrays. Loads read {@code blocks}, where an unwritten block is
 * {@link #ZERO_BLOCK}. Stores write through {@code writable}, which holds a block's array only
 * while the block is dirty: {@link #clean()} and the restores null it again. So a store's fast path
 * is what a plain paged memory's is (one array load and the store; the null test is the check the
 * JVM makes anyway), and only the first store to a block after a clean takes the slow path, which
 * makes the block's array if it has none, marks it dirty and lists it. Guest code writes the same
 * few blocks over and over, so the slow path runs a few dozen times per run; the restore walks the
 * list instead of scanning a map of every block.
 *
 * <p>Every path that changes memory goes through {@code writable}: the typed stores the compiled
 * guest code makes, bulk {@code write}, {@code fill} and {@code copy}, data segments, and the
 * atomics (which fall back to the plain stores).
 *
 * <p>Both arrays hold exactly the blocks of the current size, so a block index below their length
 * is the wasm bounds check for an access within one block (the typed accesses test it explicitly,
 * which also spares C2 its own check). Growing replaces them with longer copies.
 *
 * <p>Not shared, not thread-safe: the engine thread is its only user (the engine reads {@link
 * #pages()} from other threads through its own volatile copy).
 */
final class TrackedMemory extends BlockMemory {
    private static final int BLOCK_MASK = BLOCK_SIZE - 1;
    static final int BLOCKS_PER_PAGE = PAGE_SIZE / BLOCK_SIZE;

    /**
     * The typed accesses' fast path when {@link RawAccess} allows it: {@code sun.misc.Unsafe} on
     * the block arrays, one intrinsic per access instead of the byte-array {@code VarHandle}'s
     * force-inlined chain, which leaves more of C2's inlining budget to the generated code
     * (docs/performance.md, "Typed accesses through Unsafe"). A static final, so C2 folds the
     * choice and compiles only the path taken.
     */
    private static final boolean RAW = RawAccess.ENABLED;

    private static final long BASE = RawAccess.BYTE_ARRAY_BASE;

    private static final VarHandle SHORTS =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** What every block not yet written reads as; never written itself. */
    private static final byte[] ZERO_BLOCK = new byte[BLOCK_SIZE];

    private final int initialPages;
    private final int maximumPages;

    // blocks (for loads: every block, unwritten ones as ZERO_BLOCK) and writable (for stores: the
    // same arrays for the blocks written since clean(), null for the rest) are BlockMemory's, where
    // the accesses compiled into the engine class read them too.

    /** The blocks whose writable entry is set, in the order first written since clean(). */
    private int[] dirtyList = new int[256];

    private int dirtyCount;
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
        this.blocks = new byte[initialPages * BLOCKS_PER_PAGE][];
        this.writable = new byte[initialPages * BLOCKS_PER_PAGE][];
        Arrays.fill(blocks, ZERO_BLOCK);
        this.nPages = initialPages;
    }

    // ---------------------------------------------------------------------------------------
    // Dirty-block tracking.

    /** Forgets every mark: the memory as it is now becomes the base later restores return to. */
    void clean() {
        for (int i = 0; i < dirtyCount; i++) {
            writable[dirtyList[i]] = null;
        }
        dirtyCount = 0;
    }

    /**
     * Blocks above an image's last non-zero block that a restore keeps (zeroed) when a run wrote
     * them: the room ordinary runs allocate in, so they do not make and drop arrays every time.
     * Written blocks above that are given back.
     */
    static final int KEPT_PAGES_ABOVE_IMAGE = 16;

    /**
     * Puts back {@code image} (the memory as it was at the last {@link #clean()}) in every block
     * written since, and cleans. A written block more than {@link #KEPT_PAGES_ABOVE_IMAGE} pages
     * above the image is given back rather than zeroed. Returns the number of blocks it touched.
     */
    int restoreDirty(MemoryImage image) {
        int keptBlocks = (image.extentPages() + KEPT_PAGES_ABOVE_IMAGE) * BLOCKS_PER_PAGE;
        int touched = dirtyCount;
        for (int i = 0; i < touched; i++) {
            int b = dirtyList[i];
            writable[b] = null;
            if (b >= keptBlocks) {
                blocks[b] = ZERO_BLOCK;
                continue;
            }
            byte[] data = image.block(b);
            if (data != null) {
                System.arraycopy(data, 0, blocks[b], 0, BLOCK_SIZE);
            } else {
                Arrays.fill(blocks[b], (byte) 0);
            }
        }
        dirtyCount = 0;
        return touched;
    }

    /**
     * Makes the memory exactly {@code image} (up to its size; it never shrinks), whatever it held,
     * and cleans.
     */
    void restoreAll(MemoryImage image) {
        clean();
        for (int b = 0; b < blocks.length; b++) {
            byte[] data = image.block(b);
            if (data == null) {
                blocks[b] = ZERO_BLOCK;
            } else {
                if (blocks[b] == ZERO_BLOCK) {
                    blocks[b] = new byte[BLOCK_SIZE];
                }
                System.arraycopy(data, 0, blocks[b], 0, BLOCK_SIZE);
            }
        }
    }

    /** The memory as it is now, holding only its non-zero blocks. */
    MemoryImage image() {
        byte[][] out = new byte[blocks.length][];
        for (int b = 0; b < blocks.length; b++) {
            byte[] data = blocks[b];
            if (data != ZERO_BLOCK
                    && Arrays.mismatch(data, 0, BLOCK_SIZE, ZERO_BLOCK, 0, BLOCK_SIZE) >= 0) {
                out[b] = data.clone();
            }
        }
        return new MemoryImage(out);
    }

    /** Blocks that hold an array of their own (written at least once since last given back). */
    int allocatedBlocks() {
        int n = 0;
        for (byte[] data : blocks) {
            n += data != ZERO_BLOCK ? 1 : 0;
        }
        return n;
    }

    /** Blocks written since the last clean (for tests and statistics). */
    int dirtyBlocks() {
        return dirtyCount;
    }

    /** The block's array for a store: its own, marked dirty, made on its first store. */
    private byte[] dirtyBlock(int b) {
        byte[] data = writable[b];
        if (data != null) {
            return data;
        }
        data = blocks[b];
        if (data == ZERO_BLOCK) {
            data = new byte[BLOCK_SIZE];
            blocks[b] = data;
        }
        writable[b] = data;
        if (dirtyCount == dirtyList.length) {
            dirtyList = Arrays.copyOf(dirtyList, dirtyCount * 2);
        }
        dirtyList[dirtyCount++] = b;
        return data;
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
        int n = (int) after * BLOCKS_PER_PAGE;
        int old = blocks.length;
        blocks = Arrays.copyOf(blocks, n);
        writable = Arrays.copyOf(writable, n);
        Arrays.fill(blocks, old, n, ZERO_BLOCK);
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
        // The instance has made its globals by now (data segment offsets may read them).
        this.global0 = instance.globalCount() > 0 ? instance.global(0) : null;
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

    @Override
    public void write(int addr, byte[] data, int offset, int size) {
        checkBounds(offset, size, data.length);
        checkBounds(addr, size, sizeInBytes());
        if (size == 0) {
            return;
        }
        while (size > 0) {
            int off = addr & BLOCK_MASK;
            int chunk = Math.min(size, BLOCK_SIZE - off);
            System.arraycopy(data, offset, dirtyBlock(addr >>> BLOCK_SHIFT), off, chunk);
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
            int off = addr & BLOCK_MASK;
            int chunk = Math.min(len - at, BLOCK_SIZE - off);
            System.arraycopy(blocks[addr >>> BLOCK_SHIFT], off, out, at, chunk);
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
        int addr = fromIndex;
        while (size > 0) {
            int off = addr & BLOCK_MASK;
            int chunk = Math.min(size, BLOCK_SIZE - off);
            Arrays.fill(dirtyBlock(addr >>> BLOCK_SHIFT), off, off + chunk, value);
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
        if (dest <= src || dest >= src + size) {
            // Forward is safe: the destination never overtakes unread source bytes.
            while (size > 0) {
                int doff = dest & BLOCK_MASK;
                int soff = src & BLOCK_MASK;
                int chunk = Math.min(size, BLOCK_SIZE - Math.max(doff, soff));
                System.arraycopy(
                        blocks[src >>> BLOCK_SHIFT],
                        soff,
                        dirtyBlock(dest >>> BLOCK_SHIFT),
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
                int dTail = ((dEnd - 1) & BLOCK_MASK) + 1;
                int sTail = ((sEnd - 1) & BLOCK_MASK) + 1;
                int chunk = Math.min(size, Math.min(dTail, sTail));
                System.arraycopy(
                        blocks[(sEnd - 1) >>> BLOCK_SHIFT],
                        sTail - chunk,
                        dirtyBlock((dEnd - 1) >>> BLOCK_SHIFT),
                        dTail - chunk,
                        chunk);
                dEnd -= chunk;
                sEnd -= chunk;
                size -= chunk;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Typed loads and stores. Each is a fast path for an access within one block (and, for a
    // store, a block already dirty) and a call to the slow path for everything else: the first
    // store to a block after a clean, an access across two blocks, and every access out of
    // bounds. The fast paths are small on purpose. In the big generated methods C2 inlines a
    // helper only while the method plus what it has inlined stays under 8,000 bytes of bytecode,
    // so the smaller each access is, the more of a method's accesses are inlined rather than
    // called (docs/performance.md). Their own tests stand in for the wasm bounds check: a block
    // index is below the array's length (a negative address shifts to one far above it) and the
    // access ends within the block. With RAW they are also the only check between a guest address
    // and the JVM's heap, which holds because every array in blocks and writable is exactly
    // BLOCK_SIZE long (made here or ZERO_BLOCK; restores copy into them, never swap in others)
    // and the offset test keeps the access inside it. TrackedMemoryTest checks every typed
    // access at every offset near a block's ends against the VarHandle path.

    /** Loads {@code size} bytes little-endian, one at a time, after the bounds check. */
    private long readSlow(int addr, int size) {
        checkBounds(addr, size, sizeInBytes());
        long v = 0;
        for (int i = size - 1; i >= 0; i--) {
            int a = addr + i;
            v = (v << 8) | (blocks[a >>> BLOCK_SHIFT][a & BLOCK_MASK] & 0xFFL);
        }
        return v;
    }

    /** Stores {@code size} bytes of {@code data} little-endian, marking their blocks dirty. */
    private void writeSlow(int addr, int size, long data) {
        checkBounds(addr, size, sizeInBytes());
        for (int i = 0; i < size; i++) {
            int a = addr + i;
            dirtyBlock(a >>> BLOCK_SHIFT)[a & BLOCK_MASK] = (byte) (data >>> (8 * i));
        }
    }

    @Override
    public void writeByte(int addr, byte data) {
        int b = addr >>> BLOCK_SHIFT;
        byte[][] w = writable;
        if (b < w.length) {
            byte[] block = w[b];
            if (block != null) {
                block[addr & BLOCK_MASK] = data;
                return;
            }
        }
        writeSlow(addr, 1, data);
    }

    @Override
    public void writeShort(int addr, short data) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] w = writable;
        if (off <= BLOCK_SIZE - 2 && b < w.length) {
            byte[] block = w[b];
            if (block != null) {
                if (RAW) {
                    RawAccess.UNSAFE.putShort(block, BASE + off, data);
                } else {
                    SHORTS.set(block, off, data);
                }
                return;
            }
        }
        writeSlow(addr, 2, data);
    }

    @Override
    public void writeI32(int addr, int data) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] w = writable;
        if (off <= BLOCK_SIZE - 4 && b < w.length) {
            byte[] block = w[b];
            if (block != null) {
                if (RAW) {
                    RawAccess.UNSAFE.putInt(block, BASE + off, data);
                } else {
                    INTS.set(block, off, data);
                }
                return;
            }
        }
        writeSlow(addr, 4, data);
    }

    @Override
    public void writeLong(int addr, long data) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] w = writable;
        if (off <= BLOCK_SIZE - 8 && b < w.length) {
            byte[] block = w[b];
            if (block != null) {
                if (RAW) {
                    RawAccess.UNSAFE.putLong(block, BASE + off, data);
                } else {
                    LONGS.set(block, off, data);
                }
                return;
            }
        }
        writeSlow(addr, 8, data);
    }

    @Override
    public void writeF32(int addr, float data) {
        writeI32(addr, Float.floatToRawIntBits(data));
    }

    @Override
    public void writeF64(int addr, double data) {
        writeLong(addr, Double.doubleToRawLongBits(data));
    }

    @Override
    public byte read(int addr) {
        int b = addr >>> BLOCK_SHIFT;
        byte[][] bl = blocks;
        if (b < bl.length) {
            return bl[b][addr & BLOCK_MASK];
        }
        return (byte) readSlow(addr, 1);
    }

    @Override
    public short readShort(int addr) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] bl = blocks;
        if (off <= BLOCK_SIZE - 2 && b < bl.length) {
            return RAW
                    ? RawAccess.UNSAFE.getShort(bl[b], BASE + off)
                    : (short) SHORTS.get(bl[b], off);
        }
        return (short) readSlow(addr, 2);
    }

    @Override
    public long readU16(int addr) {
        return readShort(addr) & 0xFFFFL;
    }

    @Override
    public int readInt(int addr) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] bl = blocks;
        if (off <= BLOCK_SIZE - 4 && b < bl.length) {
            return RAW ? RawAccess.UNSAFE.getInt(bl[b], BASE + off) : (int) INTS.get(bl[b], off);
        }
        return (int) readSlow(addr, 4);
    }

    @Override
    public long readLong(int addr) {
        int off = addr & BLOCK_MASK;
        int b = addr >>> BLOCK_SHIFT;
        byte[][] bl = blocks;
        if (off <= BLOCK_SIZE - 8 && b < bl.length) {
            return RAW ? RawAccess.UNSAFE.getLong(bl[b], BASE + off) : (long) LONGS.get(bl[b], off);
        }
        return readSlow(addr, 8);
    }

    @Override
    public long readF32(int addr) {
        return readInt(addr);
    }

    @Override
    public float readFloat(int addr) {
        return Float.intBitsToFloat(readInt(addr));
    }

    @Override
    public long readF64(int addr) {
        return readLong(addr);
    }

    @Override
    public double readDouble(int addr) {
        return Double.longBitsToDouble(readLong(addr));
    }
}
