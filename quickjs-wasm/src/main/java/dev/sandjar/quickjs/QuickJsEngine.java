package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.ChicoryInterruptedException;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.WasmModule;
import dev.sandjar.quickjs.internal.EngineGlue;
import dev.sandjar.quickjs.internal.QuickJsEngineModule;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One engine instance: a Chicory instance of the AOT-compiled QuickJS-ng binary, its linear memory,
 * and the one thread every guest call runs on.
 *
 * <p>Threading: the engine owns a dedicated thread with a large stack. {@link #call(EngineTask)}
 * runs work on it and waits; every {@link JsRuntime}, {@link JsContext} and {@link JsValue} method
 * must be called from inside such a task and throws {@link IllegalStateException} elsewhere. One
 * task runs at a time. {@link #close()} ends the thread.
 *
 * <p>Failure: a WebAssembly trap, {@code abort()}, failed assertion or JVM {@link
 * StackOverflowError} inside the engine marks it broken; later calls throw {@link
 * EngineFailureException}. {@link EnginePool} replaces broken engines.
 *
 * <p>This class is the facade; the work is done by {@code EngineThread} (the thread and its queue),
 * {@code EmscriptenImports} (the 20 imports and memory growth) and {@code EngineSnapshots} (taking
 * and restoring snapshots).
 */
public final class QuickJsEngine implements AutoCloseable {
    /**
     * QuickJS's C stack is emscripten's shadow stack inside linear memory: global 0 starts at
     * 5,342,832 and the region below it is 5 MiB in this build. A runtime's max stack size is
     * clamped to this so QuickJS's own check fires long before the stack could run into the data
     * below it (leaving 1 MiB for C frames between checks).
     */
    public static final int MAX_SAFE_STACK_BYTES = 4 << 20;

    private final EngineOptions options;
    private final EngineThread thread;
    private final EmscriptenImports imports;
    private volatile String brokenReason;

    // Owned by the engine thread.
    private Ffi ffi;
    private TrackedMemory memory;
    private EngineSnapshots snapshots;
    private int shadowStackTop;
    final Map<Integer, JsRuntime> runtimes = new HashMap<>();
    final Map<Integer, JsContext> contexts = new HashMap<>();
    final HostRefTable hostRefs = new HostRefTable();

    /** Host callbacks running now; contexts and runtimes refuse to close while one runs. */
    int callbackDepth;

    private QuickJsEngine(EngineOptions options) {
        this.options = options;
        this.thread = new EngineThread(options.threadStackBytes());
        this.imports = new EmscriptenImports(this, options);
    }

    /** Builds an engine: instantiates the compiled module and runs its C constructors. */
    public static QuickJsEngine create(EngineOptions options) {
        JitFlags.warnOnce();
        QuickJsEngine engine = new QuickJsEngine(options);
        engine.thread.start();
        try {
            engine.call(
                    e -> {
                        e.instantiate();
                        return null;
                    });
        } catch (RuntimeException ex) {
            engine.close();
            throw ex;
        }
        return engine;
    }

    public static QuickJsEngine create() {
        return create(EngineOptions.defaults());
    }

    /**
     * Whether the calling thread is an engine's thread, that is: the code calling is guest work or
     * a host function it called. Blocking there on another engine's work can deadlock a pool.
     */
    public static boolean onEngineThread() {
        return EngineThread.onAnyEngineThread();
    }

    /**
     * Runs {@code task} on the engine thread and returns its result; a task already on the engine
     * thread runs inline. Exceptions the task throws are rethrown here.
     */
    public <T> T call(EngineTask<T> task) {
        return thread.call(() -> guarded(task));
    }

    /**
     * Queues {@code task} to run on the engine thread after the tasks already queued, and returns
     * at once; the future completes with its result or the exception it threw. Also from the engine
     * thread itself, the task is queued, not run inline.
     */
    public <T> CompletableFuture<T> submit(EngineTask<T> task) {
        return thread.submit(() -> guarded(task));
    }

    private <T> T guarded(EngineTask<T> task) {
        checkUsable();
        try {
            return task.run(this);
        } catch (StackOverflowError e) {
            throw markBroken("the JVM stack overflowed inside the engine", e);
        } catch (ChicoryInterruptedException e) {
            // Someone interrupted this thread (a sandbox's watchdog stopping a native loop): the
            // compiled code unwound at its next call or back edge, wherever that was.
            Thread.interrupted();
            throw markBroken(
                    "the engine thread was interrupted inside guest code; its memory is in an"
                            + " unknown state",
                    e);
        } catch (com.dylibso.chicory.wasm.ChicoryException e) {
            // Chicory reports a JVM StackOverflowError in compiled code as "call stack exhausted".
            String what =
                    String.valueOf(e.getMessage()).contains("call stack exhausted")
                            ? "the JVM stack overflowed inside the engine (" + e.getMessage() + ")"
                            : "the engine trapped: " + e.getMessage();
            throw markBroken(what, e);
        }
    }

    EngineFailureException markBroken(String reason, Throwable cause) {
        if (brokenReason == null) {
            brokenReason = reason;
        }
        return cause instanceof EngineFailureException efe
                ? efe
                : new EngineFailureException(reason + "; the engine instance is discarded", cause);
    }

    /** True once the engine trapped; a broken engine refuses every call. */
    public boolean isBroken() {
        return brokenReason != null;
    }

    private void checkUsable() {
        if (brokenReason != null) {
            throw new EngineFailureException(
                    "engine instance is broken (" + brokenReason + ") and cannot be used");
        }
    }

    void checkThread() {
        if (!thread.isCurrent()) {
            throw new IllegalStateException(
                    "engine objects must be used on their engine's thread; wrap the work in"
                            + " engine.call(...)");
        }
        checkUsable();
    }

    /** For close(): on the engine thread, and not from inside a host function. */
    void checkClosable(String what) {
        checkThread();
        if (callbackDepth > 0) {
            throw new IllegalStateException(
                    "a " + what + " cannot be closed from inside a host function");
        }
    }

    Ffi ffi() {
        return ffi;
    }

    EmscriptenImports imports() {
        return imports;
    }

    public EngineOptions options() {
        return options;
    }

    /** Creates a runtime (a QuickJS heap with its own limits, job queue and loader). */
    public JsRuntime newRuntime() {
        checkThread();
        return new JsRuntime(this);
    }

    /** Pages of linear memory in use now (64 KiB each); memory never shrinks. */
    public int memoryPages() {
        checkThread();
        return ffi.memory.pages();
    }

    /** The shadow stack pointer's initial value (global 0), the top of QuickJS's C stack. */
    int shadowStackTop() {
        return shadowStackTop;
    }

    @Override
    public void close() {
        thread.close();
    }

    public boolean isClosed() {
        return thread.isClosed();
    }

    private void instantiate() {
        EngineGlue glue = EngineGlue.bundled();
        WasmModule module = QuickJsEngineModule.load();
        memory = new TrackedMemory(EngineOptions.MIN_MEMORY_PAGES, options.maxMemoryPages());
        Instance instance =
                Instance.builder(module)
                        .withImportValues(imports.build(glue, module, memory))
                        .withMachineFactory(QuickJsEngineModule::create)
                        .build();
        ffi = new Ffi(instance, glue);
        snapshots = new EngineSnapshots(this, memory);
        shadowStackTop = (int) instance.global(0).getValue();
        instance.export(glue.ctorsExport()).apply();
        imports.memoryReady(ffi.memory);
    }

    /**
     * Caps how far linear memory may grow from now on, in pages, below the instance's maximum
     * ({@link EngineOptions#maxMemoryPages()}). Memory never shrinks: a cap below the pages already
     * in use only stops further growth. A sandbox sets this per run from the run's heap limit, so
     * everything the guest allocates is bounded, not only QuickJS's own objects.
     */
    public void setGrowthLimitPages(int pages) {
        checkThread();
        if (pages < EngineOptions.MIN_MEMORY_PAGES || pages > options.maxMemoryPages()) {
            throw new IllegalArgumentException(
                    String.format(
                            "growthLimitPages (%d) must be between %d and the instance maximum %d",
                            pages, EngineOptions.MIN_MEMORY_PAGES, options.maxMemoryPages()));
        }
        imports.setGrowthLimitPages(pages);
    }

    /**
     * Pages of linear memory as of the last growth; thread-safe, unlike {@link #memoryPages()}, so
     * a pool can decide whether an idle engine is still small enough for the next run.
     */
    public int currentPages() {
        return imports.currentPages();
    }

    /**
     * What the engine holds open now: runtimes, contexts (closed ones stay registered until their
     * runtime closes) and host functions QuickJS has not yet freed. All zero between runs of a
     * sandbox; anything else is a leak.
     */
    public record OpenObjects(int runtimes, int contexts, int hostFunctions) {
        public boolean isEmpty() {
            return runtimes == 0 && contexts == 0 && hostFunctions == 0;
        }
    }

    public OpenObjects openObjects() {
        checkThread();
        return new OpenObjects(runtimes.size(), contexts.size(), hostRefs.size());
    }

    /**
     * Captures the engine's whole state (see {@link EngineSnapshot}). Engine thread only, not from
     * inside a host function. Costs a scan of the written pages and a copy of their non-zero 4 KiB
     * blocks.
     */
    public EngineSnapshot snapshot() {
        checkClosable("snapshot of the engine");
        return snapshots.take();
    }

    /**
     * Puts the engine back into the state of {@code snapshot}: memory up to the snapshot's size is
     * rewritten and everything above it zeroed (memory that grew since keeps its size but holds
     * nothing), globals and the Java-side mirrors are restored, and every runtime, context and
     * handle made since the snapshot is dead. Engine thread only, not from inside a host function.
     */
    public void restore(EngineSnapshot snapshot) {
        checkClosable("restore of the engine");
        snapshots.restore(snapshot);
        imports.clearLines();
    }

    /**
     * The engine's state over {@code base} (a snapshot this engine took), as an {@link EngineImage}
     * that can be restored later on this or any engine of the same build. The engine must hold
     * exactly base's runtimes, contexts, handles and host functions; it throws {@link
     * IllegalStateException} otherwise. Engine thread only, not from inside a host function.
     */
    public EngineImage captureImage(EngineSnapshot base) {
        checkClosable("image of the engine");
        return snapshots.capture(base);
    }

    /**
     * Restores {@code image} over {@code base} (a snapshot of this engine with the shape the image
     * was taken over): the Java side as in base, memory and globals as in the image. Throws {@link
     * IllegalArgumentException}, leaving the engine as it was, for an image of another engine build
     * or base shape, or one larger than this engine's memory maximum. Engine thread only, not from
     * inside a host function.
     */
    public void restoreImage(EngineSnapshot base, EngineImage image) {
        checkClosable("restore of the engine");
        snapshots.restoreImage(base, image);
        imports.clearLines();
    }

    /** The engine build images name: the npm package, its version and the binary's digest. */
    public static String buildId() {
        return EngineImage.currentBuild();
    }

    /** The whole linear memory as it is now, for tests that compare it with a snapshot. */
    byte[] memoryCopy() {
        checkThread();
        return memory.readBytes(0, memory.pages() * 65536);
    }

    /** Pages of linear memory that hold an array of their own (the rest read as zero). */
    int allocatedBlocks() {
        checkThread();
        return memory.allocatedBlocks();
    }

    /**
     * How many times the engine refused to grow its memory (at the growth cap or the maximum) since
     * it was made. A run compares it before and after to tell a guest that exhausted its heap from
     * one that merely threw. Engine thread only.
     */
    public int refusedGrowths() {
        checkThread();
        return imports.refusedGrowths();
    }

    /** The growth cap in force, in pages. */
    public int growthLimitPages() {
        checkThread();
        return imports.growthLimitPages();
    }
}
