package dev.sandjar.quickjs;

import java.util.List;
import java.util.Map;

/**
 * The whole state of one engine at a moment: its linear memory (up to the last non-zero byte), its
 * mutable WebAssembly globals, and the Java side that mirrors them (runtimes, contexts, open
 * handles, host functions). {@link QuickJsEngine#restore(EngineSnapshot)} puts it all back, so a
 * prepared runtime and context can start every run in the same fresh state without being built
 * again. Opaque; bound to the engine that took it. Immutable.
 */
public final class EngineSnapshot {
    final QuickJsEngine engine;
    final MemoryImage memory;
    final long[] globals;
    final Map<Integer, JsRuntime> runtimes;
    final Map<Integer, JsContext> contexts;
    final Map<JsRuntime, JsRuntime.Saved> runtimeStates;
    final Map<JsContext, Map<JsValue, Integer>> handles;
    final HostRefTable.Saved hostRefs;

    EngineSnapshot(
            QuickJsEngine engine,
            MemoryImage memory,
            long[] globals,
            Map<Integer, JsRuntime> runtimes,
            Map<Integer, JsContext> contexts,
            Map<JsRuntime, JsRuntime.Saved> runtimeStates,
            Map<JsContext, Map<JsValue, Integer>> handles,
            HostRefTable.Saved hostRefs) {
        this.engine = engine;
        this.memory = memory;
        this.globals = globals;
        this.runtimes = runtimes;
        this.contexts = contexts;
        this.runtimeStates = runtimeStates;
        this.handles = handles;
        this.hostRefs = hostRefs;
    }

    /**
     * Bytes of linear memory the snapshot covers: from address 0 to its last non-zero byte (rounded
     * up to 4 KiB). Restoring the snapshot an engine was last snapshotted or restored to rewrites
     * only the 4 KiB blocks written since; restoring any other rewrites every page in use.
     */
    public int memoryBytes() {
        return memory.extentBytes();
    }

    /** Bytes the snapshot keeps: only the non-zero 4 KiB blocks of its memory. */
    public int heldBytes() {
        return memory.heldBytes();
    }

    List<JsRuntime> runtimeList() {
        return List.copyOf(runtimes.values());
    }
}
