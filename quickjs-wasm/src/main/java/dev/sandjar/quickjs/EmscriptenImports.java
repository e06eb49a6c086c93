package dev.sandjar.quickjs;

import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportMemory;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.runtime.WasmFunctionHandle;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.FunctionType;
import dev.sandjar.quickjs.internal.EngineGlue;
import dev.sandjar.quickjs.internal.EngineGlue.Import;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The 20 functions the engine binary imports, in Java (docs/engine.md, "The imports"): clock, date
 * and time zone, an empty environment, stdout lines to the options' sink, memory growth up to the
 * growth cap, no timers, {@code abort}/{@code exit}/failed assertions that break the engine, and
 * the five QuickJS host callbacks. Also the state the imports keep: the growth cap and its
 * refusals, and partial stdout lines. Engine thread only, except {@link #currentPages()}.
 */
final class EmscriptenImports {
    private static final Logger LOG = Logger.getLogger(EmscriptenImports.class.getName());

    private final QuickJsEngine engine;
    private final EngineOptions options;
    private int growthLimitPages;
    private int refusedGrowths;
    private volatile int pagesNow;
    private final StringBuilder[] lineBuffers = {new StringBuilder(), new StringBuilder()};

    EmscriptenImports(QuickJsEngine engine, EngineOptions options) {
        this.engine = engine;
        this.options = options;
        this.growthLimitPages = options.maxMemoryPages();
    }

    /**
     * The import object for {@code module}: {@code memory} and one host function per import the
     * glue names. Fails naming the import the binary does not declare.
     */
    ImportValues build(EngineGlue glue, WasmModule module, Memory memory) {
        String mod = glue.importModule();
        ImportValues.Builder imports = ImportValues.builder();
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
        return imports.build();
    }

    /** Records the memory's size once the instance exists (and after each growth). */
    void memoryReady(Memory memory) {
        pagesNow = memory.pages();
    }

    void setGrowthLimitPages(int pages) {
        growthLimitPages = pages;
    }

    int growthLimitPages() {
        return growthLimitPages;
    }

    int refusedGrowths() {
        return refusedGrowths;
    }

    /** Pages as of the last growth; thread-safe. */
    int currentPages() {
        return pagesNow;
    }

    /** Drops partial stdout lines (a restored engine starts with none). */
    void clearLines() {
        for (StringBuilder line : lineBuffers) {
            line.setLength(0);
        }
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
                throw engine.markBroken("host import " + which + " failed: " + t, t);
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
                        throw engine.markBroken(
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
                        throw engine.markBroken("QuickJS called abort()", null);
                    };
            case PROC_EXIT ->
                    (inst, args) -> {
                        throw engine.markBroken("QuickJS called exit(" + args[0] + ")", null);
                    };
            case FD_WRITE -> (inst, args) -> new long[] {fdWrite(args)};
            case FD_CLOSE -> (inst, args) -> new long[] {52}; // ENOSYS
            case FD_SEEK -> (inst, args) -> new long[] {70}; // ESPIPE
            case ENVIRON_GET -> (inst, args) -> new long[] {0};
            case ENVIRON_SIZES_GET ->
                    (inst, args) -> {
                        memory().writeI32((int) args[0], 0);
                        memory().writeI32((int) args[1], 0);
                        return new long[] {0};
                    };
            case CLOCK_TIME_GET ->
                    (inst, args) -> {
                        int clock = (int) args[0];
                        if (clock < 0 || clock > 3) {
                            return new long[] {28}; // EINVAL
                        }
                        long nanos = clock == 0 ? epochNanos() : System.nanoTime();
                        memory().writeLong((int) args[2], nanos);
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
                                engine.hostRefs.callFunction(
                                        engine,
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
                        engine.hostRefs.free((int) args[1]);
                        return null;
                    };
            case MEMORY -> throw new AssertionError("memory is not a function");
        };
    }

    private Memory memory() {
        return engine.ffi().memory;
    }

    private String readName(int ptr) {
        return engine.ffi().readCString(ptr);
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private JsRuntime runtime(int rt) {
        JsRuntime runtime = engine.runtimes.get(rt);
        if (runtime == null) {
            throw engine.markBroken("host callback for an unknown runtime " + rt, null);
        }
        return runtime;
    }

    private int interrupt(int rt) {
        JsRuntime runtime = engine.runtimes.get(rt);
        return runtime != null && runtime.shouldInterrupt() ? 1 : 0;
    }

    /** {@code fd_write}: whole lines go to the options' stdout sink; a partial line waits. */
    int fdWrite(long[] args) {
        Memory memory = memory();
        int fd = (int) args[0];
        int iov = (int) args[1];
        int iovcnt = (int) args[2];
        int total = 0;
        StringBuilder line = lineBuffers[fd == 1 ? 0 : 1];
        for (int i = 0; i < iovcnt; i++) {
            int base = memory.readInt(iov + 8 * i);
            int len = memory.readInt(iov + 8 * i + 4);
            byte[] bytes = memory.readBytes(base, len);
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
        memory.writeI32((int) args[3], total);
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
        Memory memory = memory();
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
        Memory m = memory();
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
        Memory m = memory();
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
        Memory m = memory();
        m.write(ptr, b, 0, n);
        m.writeByte(ptr + n, (byte) 0);
    }
}
