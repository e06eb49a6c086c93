package dev.sandjar.quickjs.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves an engine instance open or a thread running. Before the class it
 * takes a baseline of the live threads; after it (after the class's own {@code @AfterAll}) every
 * thread started since must end within a bounded wait, or the class fails naming each survivor with
 * its stack.
 *
 * <p>An open {@link QuickJsEngine} owns exactly one live {@code sandjar-engine-N} thread and {@link
 * QuickJsEngine#close()} ends it, so counting those threads counts open engine instances: that is
 * the engine half of the check. Threads of pools the JDK and the test runner share process-wide
 * (the common fork-join pool, the JDK HTTP client's selector, JUnit's timeout watcher, ...) start
 * lazily and live on by design; they are never counted. A class whose code under test owns such a
 * pool too adds it with {@link #ignoring}.
 *
 * <pre>{@code
 * @ExtendWith(EngineLeakCheck.class)            // the default check
 * class EngineTest { ... }
 *
 * @RegisterExtension                             // or configured
 * static final EngineLeakCheck LEAKS = EngineLeakCheck.create().ignoring("sandjar-wasm");
 * }</pre>
 *
 * <p>Test classes run one after another in one JVM (the build configures no parallel execution);
 * with classes running in parallel the baseline would see the other classes' threads.
 */
public final class EngineLeakCheck implements BeforeAllCallback, AfterAllCallback {
    /** Thread names (prefixes) of JDK and test-runner pools that outlive any one test class. */
    private static final List<String> SHARED =
            List.of(
                    "ForkJoinPool.commonPool-worker-",
                    "CompletableFutureDelayScheduler",
                    "HttpClient-", // JDK 17's client has no close(): its threads end on GC
                    "Keep-Alive-",
                    "process reaper",
                    "Attach Listener",
                    "Common-Cleaner",
                    "junit-",
                    "surefire-");

    /** Engine threads; the prefix {@link QuickJsEngine} names its thread with. */
    public static final String ENGINE_THREAD = "sandjar-engine-";

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(EngineLeakCheck.class);

    private final List<String> ignored;
    private final Duration wait;

    /** The default check, for {@code @ExtendWith(EngineLeakCheck.class)}. */
    public EngineLeakCheck() {
        this(SHARED, Duration.ofSeconds(10));
    }

    private EngineLeakCheck(List<String> ignored, Duration wait) {
        this.ignored = List.copyOf(ignored);
        this.wait = wait;
    }

    public static EngineLeakCheck create() {
        return new EngineLeakCheck();
    }

    /** Also never counts threads whose name starts with {@code prefix}. */
    public EngineLeakCheck ignoring(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<String> more = new ArrayList<>(ignored);
        more.add(prefix);
        return new EngineLeakCheck(more, wait);
    }

    /** How long threads started during the class get to end after it; 10 s by default. */
    public EngineLeakCheck withWait(Duration wait) {
        if (wait.isNegative() || wait.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("wait (" + wait + ") must be 0 to 5 minutes");
        }
        return new EngineLeakCheck(ignored, wait);
    }

    /** The threads alive now; pass it to {@link #assertNoneLeftSince} later. */
    public static Baseline baseline() {
        return new Baseline(Set.copyOf(Thread.getAllStackTraces().keySet()));
    }

    /** Live threads at one moment. */
    public static final class Baseline {
        private final Set<Thread> threads;

        private Baseline(Set<Thread> threads) {
            this.threads = threads;
        }
    }

    /**
     * Waits (at most this check's wait in all) for each counted thread started since {@code
     * baseline} to end, and fails naming those that did not, open engines first.
     */
    public void assertNoneLeftSince(Baseline baseline, String what) {
        long deadline = System.nanoTime() + wait.toNanos();
        List<Thread> alive = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (baseline.threads.contains(t) || isIgnored(t)) {
                continue;
            }
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                // join(0) waits forever: past the deadline, only look.
                if (left > 0) {
                    t.join(Math.max(1, left / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for threads to end", e);
            }
            if (t.isAlive()) {
                alive.add(t);
            }
        }
        if (alive.isEmpty()) {
            return;
        }
        List<Thread> engines =
                alive.stream().filter(t -> t.getName().startsWith(ENGINE_THREAD)).toList();
        StringBuilder message = new StringBuilder(what).append(" leaked: ");
        if (!engines.isEmpty()) {
            message.append(engines.size())
                    .append(" open engine instance(s) (")
                    .append(names(engines))
                    .append("), ");
        }
        message.append(alive.size())
                .append(" thread(s) still alive ")
                .append(wait.toMillis())
                .append(" ms after it ended: ")
                .append(names(alive));
        for (Thread t : alive) {
            message.append("\n\"").append(t.getName()).append("\" ").append(t.getState());
            Arrays.stream(t.getStackTrace())
                    .limit(12)
                    .forEach(f -> message.append("\n    at ").append(f));
        }
        fail(message.toString());
    }

    private boolean isIgnored(Thread t) {
        String name = t.getName();
        return ignored.stream().anyMatch(name::startsWith);
    }

    private static String names(List<Thread> threads) {
        return threads.stream().map(Thread::getName).sorted().collect(Collectors.joining(", "));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put(this, baseline());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Baseline baseline = context.getStore(NAMESPACE).get(this, Baseline.class);
        assertNoneLeftSince(baseline, context.getDisplayName());
    }
}
