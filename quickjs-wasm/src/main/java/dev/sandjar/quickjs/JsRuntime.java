package dev.sandjar.quickjs;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A QuickJS runtime: one garbage-collected heap with its memory limit, stack limit, interrupt
 * handler, module loader and job queue. Contexts made from it share its heap. Closing it closes its
 * contexts. Engine thread only.
 */
public final class JsRuntime implements AutoCloseable {
    /** QuickJS-ng's default stack limit, kept unless a caller sets another. */
    public static final int DEFAULT_MAX_STACK_BYTES = 1 << 20;

    private final QuickJsEngine engine;
    private final Ffi ffi;
    private int ptr;
    private final List<JsContext> contexts = new ArrayList<>();
    private final List<JsContext> allContexts = new ArrayList<>();
    private InterruptHandler interruptHandler;
    private ModuleLoader moduleLoader;
    private final Map<String, String> refusedNames = new HashMap<>();
    private int refusedCounter;
    private int maxStackBytes;

    JsRuntime(QuickJsEngine engine) {
        this.engine = engine;
        this.ffi = engine.ffi();
        this.ptr = ffi.call(ffi.newRuntime);
        if (ptr == 0) {
            throw new JsMemoryException("the engine could not allocate a new runtime");
        }
        engine.runtimes.put(ptr, this);
        setMaxStackSize(DEFAULT_MAX_STACK_BYTES);
    }

    int ptr() {
        engine.checkThread();
        if (ptr == 0) {
            throw new IllegalStateException("JsRuntime used after close");
        }
        return ptr;
    }

    public QuickJsEngine engine() {
        return engine;
    }

    /**
     * Sets QuickJS's allocation limit. On this build it refuses single allocations larger than the
     * limit (a catchable out-of-memory error) but does not count what is already allocated: QuickJS
     * measures allocations with {@code malloc_usable_size}, which emscripten's libc does not
     * provide, so its running total holds only per-allocation overhead. What bounds everything a
     * guest holds is {@link QuickJsEngine#setGrowthLimitPages(int)}.
     */
    public void setMemoryLimit(long bytes) {
        if (bytes < 1 || bytes > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(
                    "memoryLimit (" + bytes + ") must be between 1 and " + 0xFFFF_FFFFL + " bytes");
        }
        ffi.callVoid(ffi.setMemoryLimit, ptr(), bytes);
    }

    /**
     * Sets QuickJS's stack limit, clamped to {@link QuickJsEngine#MAX_SAFE_STACK_BYTES}: the C
     * stack is a fixed region of linear memory, so the limit can be lowered but never removed.
     *
     * @return the limit in force
     */
    public int setMaxStackSize(int bytes) {
        if (bytes < 16 * 1024) {
            throw new IllegalArgumentException(
                    "maxStackSize (" + bytes + ") must be >= " + 16 * 1024 + " bytes");
        }
        int clamped = Math.min(bytes, QuickJsEngine.MAX_SAFE_STACK_BYTES);
        ffi.callVoid(ffi.setMaxStackSize, ptr(), clamped);
        maxStackBytes = clamped;
        return clamped;
    }

    public int maxStackSize() {
        return maxStackBytes;
    }

    /** Installs the handler asked periodically while guest code runs; null removes it. */
    public void setInterruptHandler(InterruptHandler handler) {
        int rt = ptr();
        if (interruptHandler == null && handler != null) {
            ffi.callVoid(ffi.enableInterruptHandler, rt);
        }
        interruptHandler = handler;
    }

    boolean shouldInterrupt() {
        InterruptHandler h = interruptHandler;
        if (h == null) {
            return false;
        }
        try {
            return h.shouldInterrupt();
        } catch (RuntimeException e) {
            return true; // a failing handler stops the guest rather than letting it run on
        }
    }

    /** Installs a module loader (with its normalizer); null removes it and every import fails. */
    public void setModuleLoader(ModuleLoader loader) {
        int rt = ptr();
        if (loader == null) {
            ffi.callVoid(ffi.disableModuleLoader, rt);
        } else {
            ffi.callVoid(ffi.enableModuleLoader, rt, 1);
        }
        moduleLoader = loader;
    }

    int normalizeModule(String importer, String specifier) {
        String name;
        try {
            if (moduleLoader == null) {
                throw new ModuleLoader.ModuleRefusedException("no module loader is installed");
            }
            name = moduleLoader.normalize(importer, specifier);
            if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
                throw new ModuleLoader.ModuleRefusedException("normalizer returned no name");
            }
        } catch (RuntimeException e) {
            // QuickJS needs a name back; a reserved one makes the loader fail with this message.
            name = "sandjar:refused:" + (++refusedCounter);
            refusedNames.put(name, "cannot import '" + specifier + "': " + message(e));
        }
        return ffi.cString(name);
    }

    int loadModuleSource(int ctx, String moduleName) {
        JsContext context = engine.contexts.get(ctx);
        String refused = refusedNames.remove(moduleName);
        try {
            if (refused != null) {
                throw new ModuleLoader.ModuleRefusedException(refused);
            }
            if (moduleLoader == null) {
                throw new ModuleLoader.ModuleRefusedException(
                        "cannot import '" + moduleName + "': no module loader is installed");
            }
            String source = moduleLoader.load(moduleName);
            if (source == null) {
                throw new ModuleLoader.ModuleRefusedException(
                        "cannot import '" + moduleName + "': module not found");
            }
            if (source.indexOf('\0') >= 0) {
                throw new ModuleLoader.ModuleRefusedException(
                        "cannot import '"
                                + moduleName
                                + "': module source contains a NUL character");
            }
            return ffi.cString(source);
        } catch (RuntimeException e) {
            if (context != null) {
                String msg = message(e);
                if (!msg.startsWith("cannot import")) {
                    msg = "cannot import '" + moduleName + "': " + msg;
                }
                ffi.free(context.throwError("ReferenceError", msg));
            }
            return 0;
        }
    }

    private static String message(RuntimeException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** A context with every intrinsic. */
    public JsContext newContext() {
        return newContext(EnumSet.allOf(Intrinsic.class));
    }

    /** A context with only the given intrinsics; the rest are absent. */
    public JsContext newContext(Set<Intrinsic> intrinsics) {
        int flags = 0;
        for (Intrinsic i : intrinsics) {
            flags |= i.flag;
        }
        if (flags == 0) {
            throw new IllegalArgumentException("a context needs at least one intrinsic");
        }
        boolean all = intrinsics.containsAll(EnumSet.allOf(Intrinsic.class));
        int ctx = ffi.call(ffi.newContext, ptr(), all ? 0 : flags);
        if (ctx == 0) {
            throw new JsMemoryException("the engine could not allocate a new context");
        }
        JsContext context = new JsContext(this, ctx);
        contexts.add(context);
        allContexts.add(context);
        return context;
    }

    public boolean isJobPending() {
        return ffi.call(ffi.isJobPending, ptr()) != 0;
    }

    /**
     * Runs up to {@code maxJobs} pending promise jobs (negative: until none is left).
     *
     * @return how many ran, and the error of a job that threw (it stops the loop)
     */
    public JobsResult executePendingJobs(int maxJobs) {
        int rt = ptr();
        int out = ffi.malloc(4);
        try {
            ffi.memory.writeI32(out, 0);
            int value = ffi.call(ffi.executePendingJob, rt, maxJobs, out);
            int ctx = ffi.readI32(out);
            JsContext context = engine.contexts.get(ctx);
            if (context == null || !context.isAlive()) {
                // No job ran, or the job's context was closed: free the box through the runtime.
                ffi.callVoid(ffi.freeValueRuntime, rt, value);
                return new JobsResult(0, null);
            }
            JsValue v = JsValue.owned(context, value);
            try {
                if (v.typeOf().equals("number")) {
                    return new JobsResult((int) v.asNumber(), null);
                }
                return new JobsResult(0, context.errorOf(v));
            } finally {
                v.close();
            }
        } finally {
            ffi.free(out);
        }
    }

    /** The outcome of {@link #executePendingJobs(int)}. {@code error} is null when none threw. */
    public record JobsResult(int executed, JsError error) {}

    /** This runtime's Java-side state, for an engine snapshot. */
    record Saved(
            int ptr, List<JsContext> contexts, List<JsContext> allContexts, int maxStackBytes) {}

    Saved save() {
        return new Saved(ptr, List.copyOf(contexts), List.copyOf(allContexts), maxStackBytes);
    }

    void restore(Saved s) {
        ptr = s.ptr();
        contexts.clear();
        contexts.addAll(s.contexts());
        allContexts.clear();
        allContexts.addAll(s.allContexts());
        maxStackBytes = s.maxStackBytes();
        refusedNames.clear();
    }

    /** After a restore from a snapshot this runtime was not part of: it is gone. */
    void forgetAfterRestore() {
        allContexts.forEach(JsContext::forgetAfterRestore);
        contexts.clear();
        ptr = 0;
    }

    void forget(JsContext context) {
        contexts.remove(context);
    }

    public boolean isAlive() {
        return ptr != 0;
    }

    @Override
    public void close() {
        if (ptr == 0) {
            throw new IllegalStateException("JsRuntime closed twice");
        }
        engine.checkClosable("runtime");
        for (JsContext c : List.copyOf(contexts)) {
            c.close();
        }
        allContexts.forEach(c -> engine.contexts.remove(c.rawPtr(), c));
        engine.runtimes.remove(ptr);
        ffi.callVoid(ffi.freeRuntime, ptr);
        ptr = 0;
    }
}
