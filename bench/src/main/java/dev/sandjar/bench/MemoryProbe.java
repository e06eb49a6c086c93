package dev.sandjar.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.graalvm.polyglot.Context;
import org.mozilla.javascript.ScriptableObject;

/**
 * Memory, run in a new JVM per measurement by the harness. {@code idle SYSTEM K MORE}: K idle
 * isolated instances held at once (Sandjar: a pool of K after a run on each; GraalJS: K initialised
 * contexts on one engine; Rhino: K scopes; quickjs4j: K runners after a run each), then heap used
 * after GC and resident memory; then MORE instances besides them (Sandjar: a second pool), and the
 * same again. {@code busy SYSTEM N SECONDS}: N threads running the json workload at once, sampling
 * the peak heap used and resident memory. Prints a line {@code heap rss} in bytes per measurement.
 */
public final class MemoryProbe {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private MemoryProbe() {}

    public static void main(String[] args) throws Exception {
        String system = args[1];
        int n = Integer.parseInt(args[2]);
        if (args[0].equals("idle")) {
            List<AutoCloseable> held = idle(system, n);
            settle();
            System.out.println(MEMORY.getHeapMemoryUsage().getUsed() + " " + rss());
            held.addAll(idle(system, Integer.parseInt(args[3])));
            settle();
            System.out.println(MEMORY.getHeapMemoryUsage().getUsed() + " " + rss());
            System.out.println("held " + held.size());
        } else {
            busy(system, n, Integer.parseInt(args[3]));
        }
        Runtime.getRuntime().halt(0);
    }

    private static List<AutoCloseable> idle(String system, int k) throws Exception {
        List<AutoCloseable> held = new ArrayList<>();
        String trivial = Workloads.body("trivial");
        switch (system) {
            case "sandjar" -> {
                SandjarSystem s = new SandjarSystem(k);
                // k concurrent runs, so each instance has run once.
                runConcurrently(k, () -> s.eval("let x = 0; for (let i = 0; i < 1e5; i++) x++;"));
                held.add(s);
            }
            case "graaljs", GraalJit.SYSTEM -> {
                GraalSystem graal = new GraalSystem(system.equals(GraalJit.SYSTEM));
                held.add(graal);
                for (int i = 0; i < k; i++) {
                    Context c = graal.context();
                    c.eval("js", Workloads.asJsonScript(trivial));
                    held.add(c);
                }
            }
            case "rhino" -> {
                List<ScriptableObject> scopes = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    try (org.mozilla.javascript.Context cx =
                            org.mozilla.javascript.Context.enter()) {
                        cx.setInterpretedMode(true);
                        cx.setLanguageVersion(org.mozilla.javascript.Context.VERSION_ES6);
                        ScriptableObject scope = cx.initStandardObjects();
                        cx.evaluateString(scope, Workloads.asJsonScript(trivial), "m.js", 1, null);
                        scopes.add(scope);
                    }
                }
                held.add(() -> scopes.clear());
            }
            case "quickjs4j" -> {
                for (int i = 0; i < k; i++) {
                    io.roastedroot.quickjs4j.core.Runner r =
                            io.roastedroot.quickjs4j.core.Runner.builder().build();
                    r.compileAndExec(Workloads.asJsonScript(trivial));
                    held.add(r);
                }
            }
            default -> throw new IllegalArgumentException(system);
        }
        return held;
    }

    private static void busy(String system, int threads, int seconds) throws Exception {
        JsSystem js = JsSystem.create(system, threads);
        String json = Workloads.body("json");
        js.eval(json);
        settle();
        AtomicLong peakHeap = new AtomicLong();
        AtomicLong peakRss = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread sampler =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                peakHeap.accumulateAndGet(
                                        MEMORY.getHeapMemoryUsage().getUsed(), Math::max);
                                peakRss.accumulateAndGet(rss(), Math::max);
                                try {
                                    Thread.sleep(10);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
        sampler.start();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        runConcurrently(
                threads,
                () -> {
                    while (System.nanoTime() < end) {
                        js.eval(json);
                    }
                });
        done.set(true);
        sampler.join();
        System.out.println(peakHeap.get() + " " + peakRss.get());
    }

    private static void runConcurrently(int threads, Runnable task) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t =
                    new Thread(
                            null,
                            () -> {
                                try {
                                    start.await();
                                    task.run();
                                } catch (Throwable e) {
                                    synchronized (errors) {
                                        errors.add(e);
                                    }
                                }
                            },
                            "probe-" + i,
                            4 << 20);
            t.start();
            all.add(t);
        }
        start.countDown();
        for (Thread t : all) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("a probe thread failed", errors.get(0));
        }
    }

    private static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    /** Resident set size of this process, from /proc (0 where there is none). */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
