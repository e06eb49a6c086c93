package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.types.MutabilityType;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes and restores one engine's {@link EngineSnapshot}s (docs/engine.md, "Snapshots"): linear
 * memory, the mutable WebAssembly globals, and the Java side that mirrors them. Remembers which
 * snapshot memory matches except for the blocks written since, so restoring that one rewrites only
 * those blocks. Engine thread only; {@link QuickJsEngine} checks the thread and that no host
 * function is running.
 */
final class EngineSnapshots {
    private final QuickJsEngine engine;
    private final TrackedMemory memory;

    /** The snapshot memory matches except for the blocks written since; null when unknown. */
    private EngineSnapshot memoryBase;

    EngineSnapshots(QuickJsEngine engine, TrackedMemory memory) {
        this.engine = engine;
        this.memory = memory;
    }

    EngineSnapshot take() {
        MemoryImage image = memory.image();
        Instance instance = engine.ffi().instance();
        long[] globals = new long[instance.globalCount()];
        for (int i = 0; i < globals.length; i++) {
            globals[i] = instance.global(i).getValue();
        }
        Map<JsRuntime, JsRuntime.Saved> rts = new IdentityHashMap<>();
        engine.runtimes.values().forEach(rt -> rts.put(rt, rt.save()));
        Map<JsContext, Map<JsValue, Integer>> handles = new IdentityHashMap<>();
        engine.contexts.values().forEach(c -> handles.put(c, c.saveHandles()));
        EngineSnapshot snapshot =
                new EngineSnapshot(
                        engine,
                        image,
                        globals,
                        Map.copyOf(engine.runtimes),
                        Map.copyOf(engine.contexts),
                        rts,
                        handles,
                        engine.hostRefs.save());
        memory.clean();
        memoryBase = snapshot;
        return snapshot;
    }

    void restore(EngineSnapshot snapshot) {
        if (snapshot.engine != engine) {
            throw new IllegalArgumentException("the snapshot belongs to another engine");
        }
        if (memoryBase == snapshot) {
            // Only the blocks written since the snapshot was taken or last restored differ.
            memory.restoreDirty(snapshot.memory);
        } else {
            memory.restoreAll(snapshot.memory);
            memoryBase = snapshot;
        }
        Instance instance = engine.ffi().instance();
        for (int i = 0; i < snapshot.globals.length; i++) {
            var g = instance.global(i);
            if (g.getMutabilityType() == MutabilityType.Var) {
                g.setValue(snapshot.globals[i]);
            }
        }
        for (JsRuntime rt : List.copyOf(engine.runtimes.values())) {
            if (!snapshot.runtimeStates.containsKey(rt)) {
                rt.forgetAfterRestore();
            }
        }
        for (JsContext c : List.copyOf(engine.contexts.values())) {
            if (!snapshot.handles.containsKey(c)) {
                c.forgetAfterRestore();
            }
        }
        engine.runtimes.clear();
        engine.runtimes.putAll(snapshot.runtimes);
        engine.contexts.clear();
        engine.contexts.putAll(snapshot.contexts);
        snapshot.runtimeStates.forEach(JsRuntime::restore);
        snapshot.handles.forEach(JsContext::restoreHandles);
        engine.hostRefs.restore(snapshot.hostRefs);
    }
}
