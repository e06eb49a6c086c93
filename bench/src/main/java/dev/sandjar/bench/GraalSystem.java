package dev.sandjar.bench;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;

/**
 * GraalJS through {@code org.graalvm.polyglot}: one shared {@link Engine} (it caches parsed code
 * across contexts, as its documentation recommends for many short contexts) and a fresh {@link
 * Context} per call. Two columns of the bench use it: "graaljs", GraalJS 23.1.8 on the bench's own
 * class path, which on a stock JDK without the Graal compiler runs in Truffle's interpreter; and
 * "graaljs-jit", GraalJS 25 with the Graal compiler in a JVM that {@link GraalJit} starts, which
 * refuses to start unless Truffle's optimizing runtime is on.
 */
public final class GraalSystem implements JsSystem {
    private static final HostAccess BUFFERS =
            HostAccess.newBuilder().allowBufferAccess(true).build();
    private static final Source ROWS = Source.create("js", Json.rowsScript("__in"));
    private static final Source BYTES =
            Source.create(
                    "js",
                    "globalThis.buf = new Uint8Array(__in);\n"
                            + "(function () { return buf; })().buffer");

    /** What Truffle's default runtime calls itself: no optimizing compiler. */
    static final String INTERPRETED = "Interpreted";

    private final boolean jit;
    private final Engine engine;

    /**
     * The engine for one column. With {@code jit}, Truffle must run its optimizing runtime: when it
     * fell back to the interpreter, this throws with the engine's own warning, which names the
     * cause (no JVMCI, no Graal compiler, a JVMCI version the compiler does not accept).
     */
    GraalSystem(boolean jit) {
        this(jit, Engine.newBuilder("js"));
    }

    /**
     * The JIT column's engine with Truffle's compilation switched off: its interpreter, for {@link
     * GraalJit}'s proof that compiling is what makes the column fast. Only where the optimizing
     * runtime runs (the interpreter-only runtime has no such option).
     */
    static GraalSystem withoutCompilation() {
        return new GraalSystem(
                false,
                Engine.newBuilder("js")
                        .allowExperimentalOptions(true)
                        .option("engine.Compilation", "false"));
    }

    private GraalSystem(boolean jit, Engine.Builder builder) {
        this.jit = jit;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        this.engine =
                builder.option("engine.WarnInterpreterOnly", Boolean.toString(jit))
                        .logHandler(log)
                        .build();
        if (jit && engine.getImplementationName().equals(INTERPRETED)) {
            engine.close();
            // The warning's first sentences name the cause; the rest is advice and links.
            String warning = log.toString(StandardCharsets.UTF_8).trim().replaceAll("\\s+", " ");
            if (warning.length() > 500) {
                warning = warning.substring(0, 500) + "...";
            }
            throw new IllegalStateException(
                    "Truffle runs interpreted, not with the Graal compiler"
                            + (warning.isEmpty() ? "" : ": " + warning));
        }
    }

    /** The Truffle runtime's name: "Interpreted", or e.g. "GraalVM CE" when it compiles. */
    public String implementation() {
        return engine.getImplementationName();
    }

    /** A fresh context on the shared engine. */
    Context context() {
        return Context.newBuilder("js").engine(engine).allowHostAccess(BUFFERS).build();
    }

    @Override
    public String name() {
        return jit ? GraalJit.SYSTEM : "graaljs";
    }

    @Override
    public Object eval(String body) {
        try (Context c = context()) {
            return c.eval("js", Workloads.asJsonScript(body)).asString();
        }
    }

    @Override
    public List<Map<String, Object>> rows(List<Map<String, Object>> rows) {
        String in = Json.write(rows);
        try (Context c = context()) {
            c.getBindings("js").putMember("__in", in);
            return Json.readRows(c.eval(ROWS).asString());
        }
    }

    @Override
    public byte[] bytes(byte[] data) {
        try (Context c = context()) {
            c.getBindings("js").putMember("__in", ByteBuffer.wrap(data));
            Value v = c.eval(BYTES); // an ArrayBuffer: typed arrays expose no buffer elements
            // 23.1 has no bulk read: eight bytes per interop call (the JIT column's GraalJS 25
            // runs this same code, compiled against 23.1's API).
            int n = Math.toIntExact(v.getBufferSize());
            ByteBuffer out = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
            int i = 0;
            for (; i + 8 <= n; i += 8) {
                out.putLong(v.readBufferLong(ByteOrder.LITTLE_ENDIAN, i));
            }
            for (; i < n; i++) {
                out.put(v.readBufferByte(i));
            }
            return out.array();
        }
    }

    @Override
    public void close() {
        engine.close();
    }
}
