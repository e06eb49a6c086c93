package dev.sandjar.bench;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.RunStats;
import dev.sandjar.host.Sandbox;
import java.util.List;
import java.util.Map;

/** Sandjar through its public API: one {@link Sandbox}, one {@link Sandbox#run} per call. */
public final class SandjarSystem implements JsSystem {
    /**
     * Room for the transport workloads (5,000 rows are ~0.7 MB of JSON, the bytes 4 MiB); the
     * default output limit is 100 KiB.
     */
    static final Limits LIMITS = Limits.builder().outputBytes(10L << 20).build();

    private final Sandbox sandbox;
    private final ThreadLocal<RunStats> lastStats = new ThreadLocal<>();
    private final String name;

    SandjarSystem(int poolSize) {
        this(poolSize, "sandjar");
    }

    /** {@code name}: the column it reports in ({@link JsSystem#SANDJAR_NO_FLAGS} or sandjar). */
    SandjarSystem(int poolSize, String name) {
        this.sandbox = Sandbox.builder().poolSize(poolSize).defaults(LIMITS).build();
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    /** The stats of the last run this thread made. */
    public RunStats lastStats() {
        return lastStats.get();
    }

    private Object run(RunRequest request) {
        RunResult r = sandbox.run(request);
        lastStats.set(r.stats());
        return r.valueOrThrow();
    }

    @Override
    public Object eval(String body) {
        return run(RunRequest.builder(body).build());
    }

    @Override
    @SuppressWarnings("unchecked")
    /**
     * The rows enter as {@code input}: read-only data, as the peers receive it. A {@code global}
     * would also be read back after the run (globals sync), work no peer does.
     */
    public List<Map<String, Object>> rows(List<Map<String, Object>> rows) {
        return (List<Map<String, Object>>)
                run(RunRequest.builder("return rows").input("rows", rows).build());
    }

    @Override
    public byte[] bytes(byte[] data) {
        return (byte[]) run(RunRequest.builder("return buf").input("buf", data).build());
    }

    @Override
    public void close() {
        sandbox.close();
    }
}
