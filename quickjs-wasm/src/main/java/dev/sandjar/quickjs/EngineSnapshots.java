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

    /**
     * The engine as it is now, over {@code base}: memory and globals, checked to have exactly
     * base's Java side (no runtime, context, handle or host function made or dropped since). Leaves
     * the dirty marks alone, so restoring base afterwards still rewrites only what changed.
     */
    EngineImage capture(EngineSnapshot base) {
        if (base.engine != engine) {
            throw new IllegalArgumentException("the base snapshot belongs to another engine");
        }
        String differs = sameJavaSide(base);
        if (differs != null) {
            throw new IllegalStateException(
                    "the engine cannot be imaged over its base snapshot: " + differs);
        }
        Instance instance = engine.ffi().instance();
        long[] globals = new long[instance.globalCount()];
        for (int i = 0; i < globals.length; i++) {
            globals[i] = instance.global(i).getValue();
        }
        return new EngineImage(
                EngineImage.currentBuild(),
                EngineImage.fingerprint(base),
                memory.pages(),
                globals,
                memory.image());
    }

    /** What differs between the engine's Java side now and {@code base}'s; null when nothing. */
    private String sameJavaSide(EngineSnapshot base) {
        if (!engine.runtimes.equals(base.runtimes)) {
            return "runtimes were opened or closed since";
        }
        if (!engine.contexts.equals(base.contexts)) {
            return "contexts were opened or closed since";
        }
        for (JsContext c : engine.contexts.values()) {
            Map<JsValue, Integer> saved = base.handles.get(c);
            Map<JsValue, Integer> now = c.saveHandles();
            if (saved == null || !sameHandles(saved, now)) {
                return "handles are open that the base does not hold ("
                        + now.size()
                        + " open, "
                        + (saved == null ? 0 : saved.size())
                        + " in the base)";
            }
        }
        if (!engine.hostRefs.save().entries().keySet().equals(base.hostRefs.entries().keySet())) {
            return "host functions were made or freed since";
        }
        return null;
    }

    private static boolean sameHandles(Map<JsValue, Integer> a, Map<JsValue, Integer> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<JsValue, Integer> e : a.entrySet()) {
            Integer other = b.get(e.getKey());
            if (other == null || other.intValue() != e.getValue().intValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Puts {@code image} into the engine over {@code base}: base's Java side, the image's memory
     * (the engine grows to its size first) and globals. The image must come from the same engine
     * build and a base of the same shape, which the fingerprint checks.
     */
    void restoreImage(EngineSnapshot base, EngineImage image) {
        if (!image.buildId.equals(EngineImage.currentBuild())) {
            throw new IllegalArgumentException(
                    "the image was made by engine build "
                            + image.buildId
                            + "; this engine is "
                            + EngineImage.currentBuild());
        }
        if (!image.baseFingerprint.equals(EngineImage.fingerprint(base))) {
            throw new IllegalArgumentException(
                    "the image was taken over a base of another shape (its template differs)");
        }
        if (image.pages > memory.maximumPages()) {
            throw new IllegalArgumentException(
                    "the image has "
                            + image.pages
                            + " memory pages; this engine allows "
                            + memory.maximumPages());
        }
        if (image.globals.length != engine.ffi().instance().globalCount()) {
            throw new IllegalArgumentException(
                    "the image has "
                            + image.globals.length
                            + " globals; this engine has "
                            + engine.ffi().instance().globalCount());
        }
        if (image.pages > memory.pages() && memory.grow(image.pages - memory.pages()) < 0) {
            throw new IllegalStateException("memory could not grow to " + image.pages + " pages");
        }
        engine.imports().memoryReady(memory);
        memory.restoreAll(image.memory);
        memoryBase = null; // memory matches no snapshot now
        setGlobals(image.globals);
        restoreJavaSide(base);
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
        setGlobals(snapshot.globals);
        restoreJavaSide(snapshot);
    }

    private void setGlobals(long[] values) {
        Instance instance = engine.ffi().instance();
        for (int i = 0; i < values.length; i++) {
            var g = instance.global(i);
            if (g.getMutabilityType() == MutabilityType.Var) {
                g.setValue(values[i]);
            }
        }
    }

    /** The Java side as in {@code snapshot}: what was made since is dead. */
    private void restoreJavaSide(EngineSnapshot snapshot) {
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
