import dev.sandjar.bench.Workloads;
import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outlining pass's training run (build/outline-profile.sh): runs the bench's guest workloads,
 * the rows round trip and a broad language mix on an engine class instrumented by {@code
 * Outliner instrument}, then writes the counters as a profile.
 *
 * <p>usage: {@code OutlineTraining MIX_JS PROFILE_OUT ROUNDS}
 */
public final class OutlineTraining {
    public static void main(String[] args) throws Exception {
        String mix = Files.readString(Path.of(args[0]));
        int rounds = Integer.parseInt(args[2]);
        Limits limits = Limits.builder().outputBytes(10L << 20).build();
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).defaults(limits).build()) {
            for (int r = 0; r < rounds; r++) {
                for (String w : Workloads.COMPUTE) {
                    sandbox.run(RunRequest.builder(Workloads.body(w)).build()).valueOrThrow();
                }
                sandbox.run(RunRequest.builder("return rows").input("rows", Workloads.rows()).build())
                        .valueOrThrow();
                sandbox.run(RunRequest.builder(mix).build()).valueOrThrow();
            }
        }
        Class<?> c =
                Class.forName("dev.sandjar.quickjs.internal.QuickJsEngineModuleMachineFuncGroup_0");
        Map<String, long[]> counts = new TreeMap<>();
        for (Field f : c.getDeclaredFields()) {
            if (f.getName().startsWith("outlineCounts$")) {
                f.setAccessible(true);
                counts.put(f.getName().substring("outlineCounts$".length()), (long[]) f.get(null));
            }
        }
        if (counts.isEmpty()) {
            throw new IllegalStateException("the engine class on the class path is not instrumented");
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach(
                (m, v) -> {
                    for (int i = 0; i < v.length; i++) {
                        sb.append(m).append(' ').append(i).append(' ').append(v[i]).append('\n');
                    }
                });
        Files.writeString(Path.of(args[1]), sb);
    }
}
