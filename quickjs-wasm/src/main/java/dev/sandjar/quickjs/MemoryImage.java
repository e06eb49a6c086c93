package dev.sandjar.quickjs;

import java.util.Arrays;

/**
 * Linear memory as a snapshot holds it: only its non-zero 4 KiB blocks. A prepared QuickJS runtime
 * and context touch about 45 blocks of the 5.4 MB below their last non-zero byte (most of that span
 * is the empty shadow stack), so an image costs about 180 KiB instead of 5.4 MB. Immutable once
 * made.
 */
final class MemoryImage {
    private static final int BLOCKS_PER_PAGE = TrackedMemory.BLOCKS_PER_PAGE;

    /** Indexed by block number; null where the block is all zero, and past the end. */
    private final byte[][] blocks;

    private final int extentBlocks;
    private final int heldBlocks;

    MemoryImage(byte[][] blocks) {
        int extent = blocks.length;
        while (extent > 0 && blocks[extent - 1] == null) {
            extent--;
        }
        this.blocks = Arrays.copyOf(blocks, extent);
        this.extentBlocks = extent;
        int held = 0;
        for (byte[] b : this.blocks) {
            held += b != null ? 1 : 0;
        }
        this.heldBlocks = held;
    }

    /** The block's bytes, or null when it is all zero. */
    byte[] block(int index) {
        return index < extentBlocks ? blocks[index] : null;
    }

    /** Whether every block of the 64 KiB page is zero. */
    boolean pageIsEmpty(int page) {
        int first = page * BLOCKS_PER_PAGE;
        for (int b = first; b < first + BLOCKS_PER_PAGE && b < extentBlocks; b++) {
            if (blocks[b] != null) {
                return false;
            }
        }
        return true;
    }

    /** Bytes from address 0 to the end of the last non-zero block. */
    int extentBytes() {
        return extentBlocks * TrackedMemory.BLOCK_SIZE;
    }

    /** Pages from address 0 up to and including the last one holding a non-zero block. */
    int extentPages() {
        return (extentBlocks + BLOCKS_PER_PAGE - 1) / BLOCKS_PER_PAGE;
    }

    /** Bytes the image keeps: its non-zero blocks. */
    int heldBytes() {
        return heldBlocks * TrackedMemory.BLOCK_SIZE;
    }

    /** The memory this image stands for, {@code length} bytes of it (zero past the extent). */
    byte[] toArray(int length) {
        byte[] out = new byte[length];
        for (int b = 0; b < extentBlocks; b++) {
            int at = b * TrackedMemory.BLOCK_SIZE;
            if (blocks[b] != null && at < length) {
                System.arraycopy(blocks[b], 0, out, at, Math.min(blocks[b].length, length - at));
            }
        }
        return out;
    }
}
