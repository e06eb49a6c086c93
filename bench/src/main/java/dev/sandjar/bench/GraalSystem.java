package dev.sandjar.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * Context} per call. On a stock JDK without the Graal compiler it runs in Truffle's interpreter.
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

    private final Engine engine;

    GraalSystem() {
        this.engine = Engine.newBuilder("js").option("engine.WarnInterpreterOnly", "false").build();
    }

    /** True when Truffle runs with an optimizing compiler (false: interpreter only). */
    public String implementation() {
        return engine.getImplementationName();
    }

    private Context context() {
        return Context.newBuilder("js").engine(engine).allowHostAccess(BUFFERS).build();
    }

    @Override
    public String name() {
        return "graaljs";
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
            // 23.1 has no bulk read: eight bytes per interop call.
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
