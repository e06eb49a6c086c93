package dev.sandjar.host.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.Operation;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.SandboxRun;
import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link Sandbox} shared by the tests of a class, closed after them with a check that nothing
 * leaked.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);
 *
 * static Sandbox sandbox;
 *
 * @BeforeAll
 * static void start(Sandbox shared) { // or SANDBOX.sandbox()
 *     sandbox = shared;
 * }
 * }</pre>
 *
 * A parameter of type {@link Sandbox} in a test, lifecycle method or constructor of the class
 * receives the same sandbox. {@code @ExtendWith(SandboxExtension.class)} gives a pool of two with
 * the built-in limits. The sandbox is built before the class's {@code @BeforeAll} methods and
 * closed after its {@code @AfterAll} methods; a {@code @Nested} class shares it.
 *
 * <p>After the class, before closing the sandbox, it checks that
 *
 * <ul>
 *   <li>no run still holds an engine: as many runs as the pool has instances must all be inside a
 *       bridge call at once, within 30 s (a run the tests left going holds its instance until it
 *       ends, so one run fewer gets in);
 *   <li>no run left runtimes, contexts or host functions open on its engine ({@code
 *       Sandbox.leaks()} is 0);
 * </ul>
 *
 * and after closing it, with {@link EngineLeakCheck} against a baseline taken before the sandbox
 * was built, that no engine instance is open and no thread the class started is still alive (the
 * sandbox's engines, timer and I/O threads end on close, within 10 s).
 */
public final class SandboxExtension
        implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private static final Duration PROBE_WAIT = Duration.ofSeconds(30);
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(SandboxExtension.class);

    private final int poolSize;
    private final UnaryOperator<Sandbox.Builder> configuration;
    private final EngineLeakCheck leakCheck;
    private volatile Sandbox sandbox;

    /** The class that built the sandbox; a {@code @Nested} class inside it shares it. */
    private volatile String owner;

    /** A pool of two, built-in limits: for {@code @ExtendWith(SandboxExtension.class)}. */
    public SandboxExtension() {
        this(2, b -> b, EngineLeakCheck.create());
    }

    private SandboxExtension(
            int poolSize, UnaryOperator<Sandbox.Builder> configuration, EngineLeakCheck check) {
        this.poolSize = poolSize;
        this.configuration = configuration;
        this.leakCheck = check;
    }

    /** A sandbox with {@code size} engine instances (1 to 256). */
    public static SandboxExtension poolSize(int size) {
        Sandbox.builder().poolSize(size); // validates here, where the test declares it
        return new SandboxExtension(size, b -> b, EngineLeakCheck.create());
    }

    /** Further builder settings, applied after the pool size: {@code b -> b.defaults(...)}. */
    public SandboxExtension configure(UnaryOperator<Sandbox.Builder> more) {
        Objects.requireNonNull(more, "more");
        UnaryOperator<Sandbox.Builder> before = configuration;
        return new SandboxExtension(poolSize, b -> more.apply(before.apply(b)), leakCheck);
    }

    /** Starts the analysis engine while building ({@link Sandbox.Builder#preloadAnalyzer}). */
    public SandboxExtension preloadAnalyzer() {
        return configure(b -> b.preloadAnalyzer(true));
    }

    /**
     * Threads whose name starts with {@code prefix} are not counted as leaked: for pools the code
     * under test keeps process-wide on purpose.
     */
    public SandboxExtension ignoringThreads(String prefix) {
        return new SandboxExtension(poolSize, configuration, leakCheck.ignoring(prefix));
    }

    /** The class's sandbox; between its {@code @BeforeAll} and {@code @AfterAll} methods. */
    public Sandbox sandbox() {
        Sandbox s = sandbox;
        if (s == null) {
            throw new IllegalStateException(
                    "the sandbox exists only while the test class runs; register the extension"
                            + " on a static field");
        }
        return s;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (sandbox != null) {
            return; // a @Nested class: it shares its enclosing class's sandbox
        }
        context.getStore(NAMESPACE).put(this, EngineLeakCheck.baseline());
        sandbox = configuration.apply(Sandbox.builder().poolSize(poolSize)).build();
        owner = context.getUniqueId();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (!context.getUniqueId().equals(owner)) {
            return;
        }
        Sandbox s = sandbox;
        sandbox = null;
        owner = null;
        EngineLeakCheck.Baseline baseline =
                context.getStore(NAMESPACE).get(this, EngineLeakCheck.Baseline.class);
        String what = context.getDisplayName() + "'s sandbox";
        List<Throwable> failures = new ArrayList<>();
        try {
            assertEveryEngineFree(s, what);
            assertEquals(
                    0, s.leaks(), what + ": a run left runtimes, contexts or host functions open");
        } catch (Throwable t) {
            failures.add(t);
        } finally {
            s.close();
        }
        try {
            leakCheck.assertNoneLeftSince(baseline, what);
        } catch (Throwable t) {
            failures.add(t);
        }
        if (!failures.isEmpty()) {
            AssertionError first =
                    failures.get(0) instanceof AssertionError ae
                            ? ae
                            : new AssertionError(failures.get(0));
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * Holds every engine instance at once: each probe run blocks its engine inside a bridge call
     * until all of them are in one. Only possible if no other run holds an instance.
     */
    private static void assertEveryEngineFree(Sandbox sandbox, String what) throws Exception {
        int size = sandbox.poolSize();
        CountDownLatch inside = new CountDownLatch(size);
        Bridge probe =
                Bridge.builder("leakprobe")
                        .guest("(host) => ({ allIn: () => host.call(\"allIn\") })")
                        .operation(
                                Operation.builder("allIn")
                                        .handler(
                                                c -> {
                                                    inside.countDown();
                                                    try {
                                                        return inside.await(
                                                                PROBE_WAIT.toMillis(),
                                                                TimeUnit.MILLISECONDS);
                                                    } catch (InterruptedException e) {
                                                        Thread.currentThread().interrupt();
                                                        return false;
                                                    }
                                                })
                                        .build())
                        .build();
        List<SandboxRun> runs = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            runs.add(sandbox.submit(RunRequest.builder("return allIn();").bridge(probe).build()));
        }
        boolean allIn = inside.await(PROBE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (SandboxRun run : runs) {
            if (!allIn) {
                run.cancel();
            }
            RunResult r = run.result().get(PROBE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (allIn && !Boolean.TRUE.equals(r.value())) {
                fail(what + ": a probe run failed: " + r.error());
            }
        }
        if (!allIn) {
            fail(
                    what
                            + ": only "
                            + (size - inside.getCount())
                            + " of "
                            + size
                            + " engine instances could be leased within "
                            + PROBE_WAIT.toSeconds()
                            + " s; a run the tests started still holds the others");
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Sandbox.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return sandbox();
    }
}
