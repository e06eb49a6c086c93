package dev.sandjar.quickjs.internal;

import com.dylibso.chicory.runtime.GlobalInstance;
import com.dylibso.chicory.runtime.Memory;

/**
 * The shape of the engine's linear memory that compiled guest code reads directly: 4 KiB blocks of
 * {@code byte[]} in two arrays. The engine's memory ({@code dev.sandjar.quickjs.TrackedMemory})
 * keeps them; the outlining pass ({@code outline}'s {@code InlineAccesses}) writes loads and stores
 * into the generated engine class that read these fields, so their names, types and the block size
 * are a contract between the two modules.
 *
 * <ul>
 *   <li>{@link #blocks}: for loads, one array per block of the current size, never null (a block
 *       never written is a shared all-zero array).
 *   <li>{@link #writable}: for stores, the same array while the block is dirty, null otherwise. A
 *       store that finds null takes the slow path, which marks the block.
 *   <li>{@link #global0}: the instance's global 0 (this build's shadow-stack pointer, which most
 *       guest functions read and write on entry and exit), so compiled code reaches it in two loads
 *       instead of Chicory's {@code Instance.global(0)} chain of six.
 * </ul>
 *
 * <p>Every array in both is exactly {@link #BLOCK_SIZE} bytes long: with {@link RawAccess} the
 * block-index and in-block-offset tests are the only check between a guest address and the JVM's
 * heap. Only the engine's memory may write these fields, and only on its engine thread; the package
 * is exported to no module.
 */
public abstract class BlockMemory implements Memory {
    public static final int BLOCK_SHIFT = 12;
    public static final int BLOCK_SIZE = 1 << BLOCK_SHIFT;

    /** For loads: every block of the memory. */
    public byte[][] blocks;

    /** For stores: the arrays of the blocks written since the last clean, null for the rest. */
    public byte[][] writable;

    /**
     * The global the instance holds at index 0, set when the instance initializes this memory
     * (after its globals, before any guest code runs); null when it has none. The same object
     * {@code Instance.global(0)} returns, so the host's reads and writes of it need no syncing.
     */
    public GlobalInstance global0;

    /**
     * The length of {@link #scratch}; the outlining pass leaves a method that needs more alone. The
     * pass's {@code Outliner.SCRATCH_SLOTS} must be the same ({@code InlineAccessesTest} checks).
     */
    public static final int SCRATCH_SLOTS = 64;

    /**
     * The array the outlined interpreter's pieces return their live locals in (docs/engine.md, "The
     * outlining pass"): one per memory, so one per engine instance and its one thread, instead of
     * one allocated on every call of the interpreter loop. Sharing it is safe because a piece
     * writes its results only on its way out, after every call it makes (a nested interpreter loop
     * included), and its caller reads them right after it returns; nothing runs in between. No
     * state lives in it between two such calls.
     */
    public final long[] scratch = new long[SCRATCH_SLOTS];

    protected BlockMemory() {}
}
