package dev.sandjar.bench;

import java.util.List;
import java.util.Map;
import org.mozilla.javascript.Context;
import org.mozilla.javascript.ScriptableObject;
import org.mozilla.javascript.typedarrays.NativeArrayBuffer;
import org.mozilla.javascript.typedarrays.NativeUint8Array;

/** Rhino in interpreted mode, ES6 language level, a fresh context and scope per call. */
public final class RhinoSystem implements JsSystem {
    @Override
    public String name() {
        return "rhino";
    }

    private static Context enter() {
        Context cx = Context.enter();
        cx.setInterpretedMode(true);
        cx.setLanguageVersion(Context.VERSION_ES6);
        return cx;
    }

    @Override
    public Object eval(String body) {
        try (Context cx = enter()) {
            ScriptableObject scope = cx.initStandardObjects();
            return Context.toString(
                    cx.evaluateString(scope, Workloads.asJsonScript(body), "main.js", 1, null));
        }
    }

    @Override
    public List<Map<String, Object>> rows(List<Map<String, Object>> rows) {
        String in = Json.write(rows);
        try (Context cx = enter()) {
            ScriptableObject scope = cx.initStandardObjects();
            ScriptableObject.putProperty(scope, "__in", in);
            Object out = cx.evaluateString(scope, Json.rowsScript("__in"), "main.js", 1, null);
            return Json.readRows(Context.toString(out));
        }
    }

    @Override
    public byte[] bytes(byte[] data) {
        try (Context cx = enter()) {
            ScriptableObject scope = cx.initStandardObjects();
            // A guest Uint8Array whose backing array the host fills and reads directly.
            NativeUint8Array in =
                    (NativeUint8Array)
                            cx.newObject(scope, "Uint8Array", new Object[] {data.length});
            System.arraycopy(data, 0, in.getBuffer().getBuffer(), 0, data.length);
            ScriptableObject.putProperty(scope, "buf", in);
            Object out =
                    cx.evaluateString(scope, "(function () { return buf; })()", "main.js", 1, null);
            NativeUint8Array view = (NativeUint8Array) out;
            NativeArrayBuffer buffer = view.getBuffer();
            byte[] copy = new byte[view.getByteLength()];
            System.arraycopy(buffer.getBuffer(), view.getByteOffset(), copy, 0, copy.length);
            return copy;
        }
    }

    @Override
    public void close() {}
}
