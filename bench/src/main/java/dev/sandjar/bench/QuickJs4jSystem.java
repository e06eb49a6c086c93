package dev.sandjar.bench;

import io.roastedroot.quickjs4j.core.Builtins;
import io.roastedroot.quickjs4j.core.Engine;
import io.roastedroot.quickjs4j.core.Runner;
import java.util.List;
import java.util.Map;

/**
 * quickjs4j (QuickJS in Javy's wasm build, AOT-compiled by Chicory's successor): a new {@link
 * Engine} and {@link Runner} per call, the run's result returned through a host function as JSON,
 * the only way it returns values.
 */
public final class QuickJs4jSystem implements JsSystem {
    @Override
    public String name() {
        return "quickjs4j";
    }

    private static String run(String prelude, String expression, String input) {
        String[] result = new String[1];
        Builtins io =
                Builtins.builder("sandjar")
                        .addVoidToString("input", () -> input)
                        .addStringToVoid("result", s -> result[0] = s)
                        .build();
        try (Runner runner =
                Runner.builder().withEngine(Engine.builder().addBuiltins(io).build()).build()) {
            runner.compileAndExec(prelude + "sandjar.result(" + expression + ");");
        }
        if (result[0] == null) {
            throw new IllegalStateException("quickjs4j returned no result");
        }
        return result[0];
    }

    @Override
    public Object eval(String body) {
        return run("", Workloads.asJsonScript(body), null);
    }

    @Override
    public List<Map<String, Object>> rows(List<Map<String, Object>> rows) {
        return Json.readRows(
                run(
                        Json.rowsPrelude("sandjar.input()"),
                        Workloads.asJsonScript(Workloads.body("rows")),
                        Json.write(rows)));
    }

    @Override
    public String bytesUnsupported() {
        return "no typed-array transport (values cross as JSON only)";
    }

    @Override
    public byte[] bytes(byte[] data) {
        throw new UnsupportedOperationException(bytesUnsupported());
    }

    @Override
    public void close() {}
}
