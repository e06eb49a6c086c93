package dev.sandjar.quickjs.internal;

import com.dylibso.chicory.runtime.Memory;

/**
 * A test double of the engine memory's class, named as the real one: its shared {@code scratch}
 * array is what the pass makes outlined and split methods return their locals in.
 */
public class BlockMemory extends Memory {
    public final long[] scratch = new long[64];
}
