package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportMemory;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.runtime.WasmFunctionHandle;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.FunctionType;
import dev.sandjar.quickjs.internal.EngineGlue;
import dev.sandjar.quickjs.internal.EngineGlue.Import;
import dev.sandjar.quickjs.internal.QuickJsEngineModule;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

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
 */
public final class QuickJsEngine implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(QuickJsEngine.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadLocal<QuickJsEngine> CURRENT = new ThreadLocal<>();

    /**
     * QuickJS's C stack is emscripten's shadow stack inside linear memory: global 0 starts at
     * 5,342,832 and the region below it is 5 MiB in this build. A runtime's max stack size is
     * clamped to this so QuickJS's own check fires long before the stack could run into the data
     * below it (leaving 1 MiB for C frames between checks).
     */
    public static final int MAX_SAFE_STACK_BYTES = 4 << 20;

    private final EngineOptions options;
    private final Thread thread;
    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private volatile boolean closed;
    private volatile String brokenReason;

    // Owned by the engine thread.
    private Ffi ffi;
    private TrackedMemory memory;

    /** The snapshot memory matches except for the blocks written since; null when unknown. */
    private EngineSnapshot memoryBase;

    private int shadowStackTop;
    private int growthLimitPages;
    private int refusedGrowths;
    private volatile int pagesNow;
    final Map<Integer, JsRuntime> runtimes = new HashMap<>();
    final Map<Integer, JsContext> contexts = new HashMap<>();
    final HostRefTable hostRefs = new HostRefTable();
    private final Map<Class<?>, Object> attachments = new HashMap<>();

    /** Host callbacks running now; contexts and runtimes refuse to close while one runs. */
    int callbackDepth;

    private final StringBuilder[] lineBuffers = {new StringBuilder(), new StringBuilder()};

    private QuickJsEngine(EngineOptions options) {
        this.options = options;
        this.thread =
                new Thread(
                        null,
                        this::loop,
                        "sandjar-engine-" + THREADS.incrementAndGet(),
                        options.threadStackBytes());
        this.thread.setDaemon(true);
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
        return CURRENT.get() != null;
    }

    private void loop() {
        CURRENT.set(this);
        while (!closed) {
            Runnable r;
            try {
                r = queue.take();
            } catch (InterruptedException e) {
                break;
            }
            r.run();
        }
        failQueued();
    }

    /** After close: every task still queued fails with "engine is closed". */
    private void failQueued() {
        for (Runnable r; (r = queue.poll()) != null; ) {
            r.run();
        }
    }

    /**
     * Runs {@code task} on the engine thread and returns its result; a task already on the engine
     * thread runs inline. Exceptions the task throws are rethrown here.
     */
    public <T> T call(EngineTask<T> task) {
        if (Thread.currentThread() == thread) {
            return guarded(task);
        }
        CompletableFuture<T> result = submit(task);
        try {
            while (true) {
                try {
                    return result.get(1, java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException timeout) {
                    if (closed && !thread.isAlive()) {
                        throw new IllegalStateException("engine closed before the task ran");
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the engine thread", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * Queues {@code task} to run on the engine thread after the tasks already queued, and returns
     * at once; the future completes with its result or the exception it threw. Also from the engine
     * thread itself, the task is queued, not run inline.
     */
    public <T> CompletableFuture<T> submit(EngineTask<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("engine is closed"));
            return result;
        }
        queue.add(
                () -> {
                    if (closed) {
                        result.completeExceptionally(
                                new IllegalStateException("engine closed before the task ran"));
                        return;
                    }
                    try {
                        result.complete(guarded(task));
                    } catch (Throwable t) {
                        result.completeExceptionally(t);
                    }
                });
        if (closed && !thread.isAlive()) {
            failQueued(); // the loop is gone: nothing else would ever run it
        }
        return result;
    }

    private <T> T guarded(EngineTask<T> task) {
        checkUsable();
        try {
            return task.run(this);
        } catch (StackOverflowError e) {
            throw markBroken("the JVM stack overflowed inside the engine", e);
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
        if (Thread.currentThread() != thread) {
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
        if (closed) {
            return;
        }
        closed = true;
        queue.add(() -> {});
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------------------------------
    // Instantiation and the 20 imports.

    private void instantiate() {
        EngineGlue glue = EngineGlue.bundled();
        WasmModule module = QuickJsEngineModule.load();
        String mod = glue.importModule();
        ImportValues.Builder imports = ImportValues.builder();
        int declaredMin = EngineOptions.MIN_MEMORY_PAGES;
        memory = new TrackedMemory(declaredMin, options.maxMemoryPages());
        imports.addMemory(new ImportMemory(mod, glue.importName(Import.MEMORY), memory));
        Map<String, FunctionType> types = new HashMap<>();
        for (int i = 0; i < module.importSection().importCount(); i++) {
            if (module.importSection().getImport(i) instanceof FunctionImport fi) {
                types.put(fi.name(), module.typeSection().getType(fi.typeIndex()));
            }
        }
        for (Import which : Import.values()) {
            if (which == Import.MEMORY) {
                continue;
            }
            String name = glue.importName(which);
            FunctionType type = types.get(name);
            if (type == null) {
                throw new IllegalStateException(
                        "engine binary does not import " + which + " as " + mod + "." + name);
            }
            imports.addFunction(
                    new HostFunction(mod, name, type, contained(which, handler(which))));
        }
        Instance instance =
                Instance.builder(module)
                        .withImportValues(imports.build())
                        .withMachineFactory(QuickJsEngineModule::create)
                        .build();
        ffi = new Ffi(instance, glue);
        shadowStackTop = (int) instance.global(0).getValue();
        growthLimitPages = options.maxMemoryPages();
        instance.export(glue.ctorsExport()).apply();
        pagesNow = ffi.memory.pages();
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
        growthLimitPages = pages;
    }

    /**
     * Pages of linear memory as of the last growth; thread-safe, unlike {@link #memoryPages()}, so
     * a pool can decide whether an idle engine is still small enough for the next run.
     */
    public int currentPages() {
        return pagesNow;
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
        MemoryImage image = memory.image();
        Instance instance = ffi.instance();
        long[] globals = new long[instance.globalCount()];
        for (int i = 0; i < globals.length; i++) {
            globals[i] = instance.global(i).getValue();
        }
        Map<JsRuntime, JsRuntime.Saved> rts = new java.util.IdentityHashMap<>();
        runtimes.values().forEach(rt -> rts.put(rt, rt.save()));
        Map<JsContext, Map<JsValue, Integer>> handles = new java.util.IdentityHashMap<>();
        contexts.values().forEach(c -> handles.put(c, c.saveHandles()));
        EngineSnapshot snapshot =
                new EngineSnapshot(
                        this,
                        image,
                        globals,
                        Map.copyOf(runtimes),
                        Map.copyOf(contexts),
                        rts,
                        handles,
                        hostRefs.save());
        memory.clean();
        memoryBase = snapshot;
        return snapshot;
    }

    /**
     * Puts the engine back into the state of {@code snapshot}: memory up to the snapshot's size is
     * rewritten and everything above it zeroed (memory that grew since keeps its size but holds
     * nothing), globals and the Java-side mirrors are restored, and every runtime, context and
     * handle made since the snapshot is dead. Engine thread only, not from inside a host function.
     */
    public void restore(EngineSnapshot snapshot) {
        checkClosable("restore of the engine");
        if (snapshot.engine != this) {
            throw new IllegalArgumentException("the snapshot belongs to another engine");
        }
        if (memoryBase == snapshot) {
            // Only the blocks written since the snapshot was taken or last restored differ.
            memory.restoreDirty(snapshot.memory);
        } else {
            memory.restoreAll(snapshot.memory);
            memoryBase = snapshot;
        }
        Instance instance = ffi.instance();
        for (int i = 0; i < snapshot.globals.length; i++) {
            var g = instance.global(i);
            if (g.getMutabilityType() == com.dylibso.chicory.wasm.types.MutabilityType.Var) {
                g.setValue(snapshot.globals[i]);
            }
        }
        for (JsRuntime rt : List.copyOf(runtimes.values())) {
            if (!snapshot.runtimeStates.containsKey(rt)) {
                rt.forgetAfterRestore();
            }
        }
        for (JsContext c : List.copyOf(contexts.values())) {
            if (!snapshot.handles.containsKey(c)) {
                c.forgetAfterRestore();
            }
        }
        runtimes.clear();
        runtimes.putAll(snapshot.runtimes);
        contexts.clear();
        contexts.putAll(snapshot.contexts);
        snapshot.runtimeStates.forEach(JsRuntime::restore);
        snapshot.handles.forEach(JsContext::restoreHandles);
        hostRefs.restore(snapshot.hostRefs);
        for (StringBuilder line : lineBuffers) {
            line.setLength(0);
        }
    }

    /** The whole linear memory as it is now, for tests that compare it with a snapshot. */
    byte[] memoryCopy() {
        checkThread();
        return memory.readBytes(0, memory.pages() * 65536);
    }

    /** Pages of linear memory that hold an array of their own (the rest read as zero). */
    int allocatedPages() {
        checkThread();
        return memory.allocatedPages();
    }

    /**
     * Per-engine state an owner keeps with the engine, made on first use (for example prepared
     * snapshots); it lives and dies with the engine. Engine thread only.
     */
    public <T> T attachment(Class<T> type, java.util.function.Supplier<T> create) {
        checkThread();
        return type.cast(attachments.computeIfAbsent(type, t -> create.get()));
    }

    /**
     * How many times the engine refused to grow its memory (at the growth cap or the maximum) since
     * it was made. A run compares it before and after to tell a guest that exhausted its heap from
     * one that merely threw. Engine thread only.
     */
    public int refusedGrowths() {
        checkThread();
        return refusedGrowths;
    }

    /** The growth cap in force, in pages. */
    public int growthLimitPages() {
        checkThread();
        return growthLimitPages;
    }

    /**
     * No Java exception may unwind through the engine's frames and leave it usable: any failure
     * inside an import marks the engine broken before it propagates.
     */
    private WasmFunctionHandle contained(Import which, WasmFunctionHandle h) {
        return (inst, args) -> {
            try {
                return h.apply(inst, args);
            } catch (EngineFailureException e) {
                throw e;
            } catch (Throwable t) {
                throw markBroken("host import " + which + " failed: " + t, t);
            }
        };
    }

    private WasmFunctionHandle handler(Import which) {
        return switch (which) {
            case ASSERT_FAIL ->
                    (inst, args) -> {
                        String cond = readName((int) args[0]);
                        String file = args[1] == 0 ? "unknown file" : readName((int) args[1]);
                        String fn = args[3] == 0 ? "unknown function" : readName((int) args[3]);
                        throw markBroken(
                                "QuickJS assertion failed: "
                                        + cond
                                        + " at "
                                        + file
                                        + ":"
                                        + args[2]
                                        + " in "
                                        + fn,
                                null);
                    };
            case ABORT ->
                    (inst, args) -> {
                        throw markBroken("QuickJS called abort()", null);
                    };
            case PROC_EXIT ->
                    (inst, args) -> {
                        throw markBroken("QuickJS called exit(" + args[0] + ")", null);
                    };
            case FD_WRITE -> (inst, args) -> new long[] {fdWrite(args)};
            case FD_CLOSE -> (inst, args) -> new long[] {52}; // ENOSYS
            case FD_SEEK -> (inst, args) -> new long[] {70}; // ESPIPE
            case ENVIRON_GET -> (inst, args) -> new long[] {0};
            case ENVIRON_SIZES_GET ->
                    (inst, args) -> {
                        ffi.memory.writeI32((int) args[0], 0);
                        ffi.memory.writeI32((int) args[1], 0);
                        return new long[] {0};
                    };
            case CLOCK_TIME_GET ->
                    (inst, args) -> {
                        int clock = (int) args[0];
                        if (clock < 0 || clock > 3) {
                            return new long[] {28}; // EINVAL
                        }
                        long nanos = clock == 0 ? epochNanos() : System.nanoTime();
                        ffi.memory.writeLong((int) args[2], nanos);
                        return new long[] {0};
                    };
            case DATE_NOW ->
                    (inst, args) ->
                            new long[] {
                                Double.doubleToRawLongBits((double) System.currentTimeMillis())
                            };
            case LOCALTIME ->
                    (inst, args) -> {
                        localtime(args[0], (int) args[1]);
                        return null;
                    };
            case TZSET ->
                    (inst, args) -> {
                        tzset((int) args[0], (int) args[1], (int) args[2], (int) args[3]);
                        return null;
                    };
            case SETITIMER -> (inst, args) -> new long[] {0};
            case KEEPALIVE_CLEAR -> (inst, args) -> null;
            case RESIZE_HEAP -> (inst, args) -> new long[] {resizeHeap(args[0] & 0xFFFFFFFFL)};
            case HOST_CALL_FUNCTION ->
                    (inst, args) ->
                            new long[] {
                                hostRefs.callFunction(
                                        this,
                                        (int) args[0],
                                        (int) args[1],
                                        (int) args[2],
                                        (int) args[3],
                                        (int) args[4])
                            };
            case HOST_INTERRUPT -> (inst, args) -> new long[] {interrupt((int) args[0])};
            case HOST_LOAD_MODULE_SOURCE ->
                    (inst, args) ->
                            new long[] {
                                runtime((int) args[0])
                                        .loadModuleSource((int) args[1], readName((int) args[2]))
                            };
            case HOST_NORMALIZE_MODULE ->
                    (inst, args) ->
                            new long[] {
                                runtime((int) args[0])
                                        .normalizeModule(
                                                readName((int) args[2]), readName((int) args[3]))
                            };
            case HOST_FREE_HOST_REF ->
                    (inst, args) -> {
                        hostRefs.free((int) args[1]);
                        return null;
                    };
            case MEMORY -> throw new AssertionError("memory is not a function");
        };
    }

    private String readName(int ptr) {
        return ffi.readCString(ptr);
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private JsRuntime runtime(int rt) {
        JsRuntime runtime = runtimes.get(rt);
        if (runtime == null) {
            throw markBroken("host callback for an unknown runtime " + rt, null);
        }
        return runtime;
    }

    private int interrupt(int rt) {
        JsRuntime runtime = runtimes.get(rt);
        return runtime != null && runtime.shouldInterrupt() ? 1 : 0;
    }

    int fdWrite(long[] args) {
        int fd = (int) args[0];
        int iov = (int) args[1];
        int iovcnt = (int) args[2];
        int total = 0;
        StringBuilder line = lineBuffers[fd == 1 ? 0 : 1];
        for (int i = 0; i < iovcnt; i++) {
            int base = ffi.memory.readInt(iov + 8 * i);
            int len = ffi.memory.readInt(iov + 8 * i + 4);
            byte[] bytes = ffi.memory.readBytes(base, len);
            String text = new String(bytes, StandardCharsets.UTF_8);
            for (int c = 0; c < text.length(); c++) {
                char ch = text.charAt(c);
                if (ch == '\n') {
                    emit(line);
                } else if (line.length() < 16384) {
                    line.append(ch);
                }
            }
            total += len;
        }
        ffi.memory.writeI32((int) args[3], total);
        return 0;
    }

    private void emit(StringBuilder line) {
        String text = line.toString();
        line.setLength(0);
        try {
            options.stdout().accept(text);
        } catch (RuntimeException e) {
            LOG.warning("engine stdout sink threw: " + e);
        }
    }

    private int resizeHeap(long requestedBytes) {
        Memory memory = ffi.memory;
        long current = (long) memory.pages() * 65536;
        if (requestedBytes <= current) {
            return 1;
        }
        long max = (long) Math.min(memory.maximumPages(), growthLimitPages) * 65536;
        if (requestedBytes > max) {
            refusedGrowths++;
            return 0;
        }
        // Grow by at least 20% (as emscripten does) but never past the maximum.
        long target = Math.min(max, Math.max(requestedBytes, current + current / 5));
        int pages = (int) ((target + 65535) / 65536) - memory.pages();
        try {
            int before = memory.grow(pages);
            pagesNow = memory.pages();
            return before < 0 ? 0 : 1;
        } catch (OutOfMemoryError e) {
            refusedGrowths++;
            return 0; // the JVM heap could not hold more guest memory: a guest out-of-memory
        }
    }

    private void localtime(long epochSeconds, int tm) {
        ZonedDateTime t = Instant.ofEpochSecond(epochSeconds).atZone(options.zone());
        Memory m = ffi.memory;
        m.writeI32(tm, t.getSecond());
        m.writeI32(tm + 4, t.getMinute());
        m.writeI32(tm + 8, t.getHour());
        m.writeI32(tm + 12, t.getDayOfMonth());
        m.writeI32(tm + 16, t.getMonthValue() - 1);
        m.writeI32(tm + 20, t.getYear() - 1900);
        m.writeI32(tm + 24, t.getDayOfWeek().getValue() % 7);
        m.writeI32(tm + 28, t.getDayOfYear() - 1);
        boolean dst = options.zone().getRules().isDaylightSavings(t.toInstant());
        m.writeI32(tm + 32, dst ? 1 : 0);
        m.writeI32(tm + 36, t.getOffset().getTotalSeconds());
    }

    private void tzset(int timezone, int daylight, int stdName, int dstName) {
        var rules = options.zone().getRules();
        Instant now = Instant.now();
        int std = rules.getStandardOffset(now).getTotalSeconds();
        Memory m = ffi.memory;
        m.writeI32(timezone, -std);
        m.writeI32(daylight, rules.getTransitionRules().isEmpty() ? 0 : 1);
        writeShortString(stdName, offsetName(std));
        writeShortString(dstName, offsetName(rules.getOffset(now).getTotalSeconds()));
    }

    private static String offsetName(int seconds) {
        int minutes = Math.abs(seconds) / 60;
        return String.format("UTC%s%02d%02d", seconds >= 0 ? "+" : "-", minutes / 60, minutes % 60);
    }

    private void writeShortString(int ptr, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(b.length, 16);
        ffi.memory.write(ptr, b, 0, n);
        ffi.memory.writeByte(ptr + n, (byte) 0);
    }
}
