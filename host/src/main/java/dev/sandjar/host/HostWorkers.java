package dev.sandjar.host;

import dev.sandjar.host.internal.WorkerMain;
import dev.sandjar.host.internal.WorkerWire;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The worker processes of a sandbox that isolates host work ({@link HostIsolation#processes()}):
 * started on demand up to the configured number, each serving one {@link IsolatedTask} call at a
 * time; calls beyond that wait in order. A call ends its worker when it runs out of time (the
 * deadline its run gives it), when its run ends first, or when the worker dies under it (out of
 * memory, past its CPU, crashed): the call fails with an error that names what happened, and the
 * next call starts a fresh worker. Thread-safe.
 */
final class HostWorkers implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HostWorkers.class.getName());
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int STDERR_TAIL = 20;
    private static final Path NICE = Path.of("/usr/bin/nice");

    private final HostIsolation config;
    private final int max;
    private final Executor io;
    private final ScheduledExecutorService timer;
    private final Deque<Worker> idle = new ArrayDeque<>(); // guarded by this
    private final Deque<Job> waiting = new ArrayDeque<>(); // guarded by this
    private final List<Worker> all = new ArrayList<>(); // guarded by this
    private int live; // workers started or starting, guarded by this
    private boolean closed; // guarded by this

    HostWorkers(HostIsolation config, int poolSize, Executor io, ScheduledExecutorService timer) {
        this.config = config;
        this.max = config.workers() > 0 ? config.workers() : Math.min(poolSize, 4);
        this.io = io;
        this.timer = timer;
    }

    /** What one isolated call asks of a worker. */
    record Request(
            String where,
            String task,
            Object input,
            long cpuNanos,
            long hostBytes,
            long maxResultBytes,
            long deadlineNanos,
            LongConsumer chargeCpu,
            java.util.function.LongFunction<RunSession.Reservation> reserve) {}

    /**
     * Runs the request in a worker; the future completes with the task's value, or exceptionally
     * with a {@link BridgeException}. Cancelling the future (the run ended) takes the call out of
     * the queue, or ends the worker running it.
     */
    CompletableFuture<Object> call(Request request) {
        Job job = new Job(request);
        job.result.whenComplete(
                (v, e) -> {
                    if (job.result.isCancelled()) {
                        job.abandon();
                    }
                });
        Worker w = null;
        boolean start = false;
        synchronized (this) {
            if (closed) {
                job.result.completeExceptionally(
                        BridgeException.cancelled(request.where() + ": the sandbox is closing"));
                return job.result;
            }
            w = idle.pollFirst();
            if (w == null && live < max) {
                live++;
                start = true;
            } else if (w == null) {
                waiting.addLast(job);
            }
        }
        if (w != null) {
            Worker worker = w;
            io.execute(() -> runJob(worker, job));
        } else if (start) {
            io.execute(() -> startThenRun(job));
        }
        scheduleDeadline(job);
        return job.result;
    }

    private void scheduleDeadline(Job job) {
        long delay = job.request.deadlineNanos() - System.nanoTime();
        ScheduledFuture<?> f =
                timer.schedule(
                        () -> job.kill(Killed.DEADLINE), Math.max(0, delay), TimeUnit.NANOSECONDS);
        job.result.whenComplete((v, e) -> f.cancel(false));
    }

    private void startThenRun(Job job) {
        Worker w;
        try {
            w = start();
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                live--;
            }
            LOG.log(Level.WARNING, "a host worker process did not start", e);
            job.result.completeExceptionally(
                    BridgeException.hostError(
                            job.request.where()
                                    + ": the host could not start a worker process ("
                                    + e.getMessage()
                                    + ")"));
            next(null);
            return;
        }
        runJob(w, job);
    }

    private void runJob(Worker w, Job job) {
        if (!job.begin(w)) {
            release(w); // the run ended while the call waited
            return;
        }
        long startNanos = System.nanoTime();
        WorkerWire.Frame response;
        RunSession.Reservation held = null;
        try {
            Map<String, Object> req = new LinkedHashMap<>();
            Request r = job.request;
            req.put("task", r.task());
            req.put("where", r.where());
            req.put("cpuNanos", Math.max(0, r.cpuNanos()));
            req.put("hostBytes", r.hostBytes());
            req.put("maxResultBytes", r.maxResultBytes());
            byte[] frame;
            try {
                frame = WorkerWire.encode(req, r.input());
            } catch (RuntimeException e) {
                job.end();
                release(w);
                job.result.completeExceptionally(
                        BridgeException.hostError(
                                r.where()
                                        + ": its input cannot be sent to a worker: "
                                        + e.getMessage()));
                return;
            }
            w.out.write(frame);
            w.out.flush();
            int length = WorkerWire.readLength(w.in);
            if (length > r.maxResultBytes() + 65536) {
                throw new WorkerWire.FrameTooLargeException(length, r.maxResultBytes());
            }
            try {
                held = r.reserve().apply(length);
            } catch (BridgeException full) {
                w.in.skipNBytes(length); // the worker stays usable; the call fails by name
                job.end();
                release(w);
                job.result.completeExceptionally(full);
                return;
            }
            response = WorkerWire.readBody(w.in, length, r.maxResultBytes() + 65536);
        } catch (IOException | RuntimeException e) {
            if (held != null) {
                held.close();
            }
            job.end();
            failed(w, job, e, System.nanoTime() - startNanos);
            return;
        }
        RunSession.Reservation crossing = held;
        // Counted while it crosses; once the call's future completes the value is the bridge's.
        job.result.whenComplete((v, x) -> crossing.close());
        job.end();
        Map<?, ?> m = response.envelope() instanceof Map<?, ?> mm ? mm : Map.of();
        if (m.get("cpuNanos") instanceof Long cpu) {
            job.request.chargeCpu().accept(cpu);
        }
        release(w);
        if (m.get("error") instanceof Map<?, ?> err) {
            job.result.completeExceptionally(
                    new BridgeException(
                            String.valueOf(err.get("name")),
                            String.valueOf(err.get("code")),
                            String.valueOf(err.get("message"))));
        } else if (response.value() != null) {
            job.result.complete(new EncodedValue(response.value()));
        } else {
            job.result.completeExceptionally(
                    BridgeException.hostError(
                            job.request.where() + ": the worker's answer was malformed"));
        }
    }

    /** The worker failed under {@code job}: find out why, tell the guest, replace it. */
    private void failed(Worker w, Job job, Exception e, long elapsedNanos) {
        w.process.destroyForcibly();
        Integer exit = null;
        try {
            if (w.process.waitFor(5, TimeUnit.SECONDS)) {
                exit = w.process.exitValue();
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        retire(w);
        Request r = job.request;
        Killed killed = job.killed;
        BridgeException error;
        // The task's CPU is not known when its process is ended: it used at most the time it had,
        // and no more than its cap (past that the worker ends the call itself).
        long used = Math.min(elapsedNanos, Math.max(r.cpuNanos(), 0));
        if (killed == Killed.RUN_ENDED) {
            error = BridgeException.cancelled(r.where() + ": the run ended");
            r.chargeCpu().accept(used);
        } else if (killed == Killed.DEADLINE) {
            error =
                    new BridgeException(
                            "RangeError",
                            "HOST_TIME_LIMIT",
                            r.where()
                                    + ": the host work went on past the run's time; its worker"
                                    + " process was stopped");
            r.chargeCpu().accept(used);
        } else if (e instanceof WorkerWire.FrameTooLargeException big) {
            error =
                    new BridgeException(
                            "RangeError",
                            "HOST_RESULT_TOO_LARGE",
                            r.where()
                                    + ": the result takes "
                                    + big.length()
                                    + " bytes; a host call's result may take at most "
                                    + r.maxResultBytes()
                                    + " (hostBytes)");
        } else if (exit != null
                && (exit == WorkerMain.EXIT_OUT_OF_MEMORY || exit == WorkerMain.EXIT_MEMORY)) {
            error =
                    new BridgeException(
                            "RangeError",
                            "HOST_MEMORY_LIMIT",
                            r.where()
                                    + ": the host work needed more memory than a call may take"
                                    + " (hostBytes "
                                    + r.hostBytes()
                                    + ", the worker's heap "
                                    + config.heapBytes()
                                    + "); its worker process was stopped");
            r.chargeCpu().accept(used);
        } else if (exit != null && exit == WorkerMain.EXIT_CPU) {
            error =
                    new BridgeException(
                            "RangeError",
                            "HOST_CPU_LIMIT",
                            r.where() + ": the run's CPU budget (timeout) is spent");
            r.chargeCpu().accept(Math.max(r.cpuNanos(), 0) + 1);
        } else {
            // Its standard error may quote the tenant's input: it goes to the fine log only.
            LOG.warning(
                    "host worker "
                            + w.id
                            + " ended while working on "
                            + r.where()
                            + " (exit code "
                            + exit
                            + ", "
                            + e.getClass().getSimpleName()
                            + "); its standard error is logged at FINE");
            LOG.fine(() -> "host worker " + w.id + " last lines:\n" + w.tail());
            error =
                    BridgeException.hostError(
                            r.where()
                                    + ": the worker process ended while working (exit code "
                                    + exit
                                    + "); it was replaced");
            r.chargeCpu().accept(used);
        }
        job.result.completeExceptionally(error);
        next(null);
    }

    /** A worker is free again: give it the next waiting call, or keep it idle. */
    private void release(Worker w) {
        next(w);
    }

    /**
     * Hands {@code w} (or, when null, a worker slot that just freed up) to the next waiting call
     * still wanted.
     */
    private void next(Worker w) {
        Job job;
        boolean start = false;
        synchronized (this) {
            do {
                job = waiting.pollFirst();
            } while (job != null && job.result.isDone());
            if (job == null) {
                if (w != null) {
                    if (closed) {
                        w.close();
                    } else {
                        w.idleSince = System.nanoTime();
                        idle.addFirst(w);
                        if (!w.idleCheck) {
                            w.idleCheck = true;
                            scheduleIdleCheck(w, config.idleTimeout().toNanos());
                        }
                    }
                }
                return;
            }
            if (w == null) {
                if (closed) {
                    return;
                }
                live++;
                start = true;
            }
        }
        Job j = job;
        if (start) {
            io.execute(() -> startThenRun(j));
        } else {
            io.execute(() -> runJob(w, j));
        }
    }

    /**
     * One pending check per worker: it ends the worker once it has been idle for the idle timeout,
     * else looks again when that time would be up.
     */
    private void scheduleIdleCheck(Worker w, long delayNanos) {
        timer.schedule(
                () -> {
                    synchronized (this) {
                        if (!idle.contains(w)) {
                            w.idleCheck = false; // working or gone: its next release schedules
                            return;
                        }
                        long left =
                                config.idleTimeout().toNanos() - (System.nanoTime() - w.idleSince);
                        if (left > 0) {
                            scheduleIdleCheck(w, left);
                            return;
                        }
                        idle.remove(w);
                    }
                    retire(w);
                    w.close();
                },
                delayNanos,
                TimeUnit.NANOSECONDS);
    }

    private void retire(Worker w) {
        synchronized (this) {
            if (all.remove(w)) {
                live--;
            }
        }
    }

    private Worker start() throws IOException {
        String java =
                config.javaCommand()
                        .map(Path::toString)
                        .orElseGet(
                                () ->
                                        Path.of(System.getProperty("java.home"), "bin", "java")
                                                .toString());
        String cp = config.classPath().orElse(System.getProperty("java.class.path", ""));
        if (cp.isBlank()) {
            throw new IOException(
                    "this JVM has no class path to start workers with; set"
                            + " HostIsolation.builder().withClassPath(...)");
        }
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(NICE)) {
            // Host work yields the CPU to the engines: a tenant's parsing never slows another's
            // guest code more than the scheduler's share for a niced process allows.
            cmd.addAll(List.of(NICE.toString(), "-n", "10"));
        }
        cmd.add(java);
        cmd.add("-Xmx" + (config.heapBytes() >> 20) + "m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-XX:+DisplayVMOutputToStderr"); // the VM's own messages stay off the channel
        cmd.add("-XX:-UsePerfData");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xss4m");
        cmd.add("-Djava.awt.headless=true");
        cmd.addAll(config.jvmOptions());
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(WorkerMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        Worker w = new Worker(p, IDS.incrementAndGet());
        synchronized (this) {
            all.add(w);
            if (closed) {
                all.remove(w);
                w.close();
                throw new IOException("the sandbox is closing");
            }
        }
        ScheduledFuture<?> tooSlow =
                timer.schedule(p::destroyForcibly, START_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
        try {
            Object hello = WorkerWire.readBody(w.in, WorkerWire.readLength(w.in), 4096).envelope();
            if (!(hello instanceof Map<?, ?> h) || !WorkerMain.HELLO.equals(h.get("hello"))) {
                throw new IOException("the worker answered " + hello);
            }
        } catch (IOException e) {
            p.destroyForcibly();
            synchronized (this) {
                all.remove(w);
            }
            LOG.warning("host worker " + w.id + " did not start; its last lines:\n" + w.tail());
            throw new IOException("worker " + w.id + " did not start: " + e.getMessage(), e);
        } finally {
            tooSlow.cancel(false);
        }
        LOG.fine("host worker " + w.id + " started (pid " + p.pid() + ")");
        return w;
    }

    /** Workers running now, for tests and metrics. */
    synchronized int liveWorkers() {
        return all.size();
    }

    /** The process ids of the workers, for tests. */
    synchronized List<Long> pids() {
        return all.stream().map(w -> w.process.pid()).toList();
    }

    @Override
    public void close() {
        List<Worker> workers;
        List<Job> jobs;
        synchronized (this) {
            closed = true;
            workers = List.copyOf(all);
            jobs = List.copyOf(waiting);
            waiting.clear();
            idle.clear();
        }
        for (Job j : jobs) {
            j.result.completeExceptionally(
                    BridgeException.cancelled(j.request.where() + ": the sandbox is closing"));
        }
        for (Worker w : workers) {
            w.close();
        }
    }

    private enum Killed {
        DEADLINE,
        RUN_ENDED
    }

    /** One call, from queued to done. */
    private static final class Job {
        final Request request;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        private Worker running; // guarded by this
        private boolean ended; // guarded by this
        volatile Killed killed;

        Job(Request request) {
            this.request = request;
        }

        /** Claims {@code w}; false when the call is no longer wanted. */
        synchronized boolean begin(Worker w) {
            if (result.isDone() || killed != null) {
                if (!result.isDone()) {
                    result.completeExceptionally(
                            killed == Killed.DEADLINE
                                    ? new BridgeException(
                                            "RangeError",
                                            "HOST_TIME_LIMIT",
                                            request.where()
                                                    + ": the run's time ran out while the call"
                                                    + " waited for a worker")
                                    : BridgeException.cancelled(
                                            request.where() + ": the run ended"));
                }
                return false;
            }
            running = w;
            return true;
        }

        synchronized void end() {
            ended = true;
            running = null;
        }

        void abandon() {
            kill(Killed.RUN_ENDED);
        }

        void kill(Killed why) {
            Worker w;
            synchronized (this) {
                if (killed == null) {
                    killed = why;
                }
                w = ended ? null : running;
            }
            if (w != null) {
                w.process.destroyForcibly(); // the reading thread sees the stream end
            } else if (!result.isDone() && why == Killed.DEADLINE) {
                result.completeExceptionally(
                        new BridgeException(
                                "RangeError",
                                "HOST_TIME_LIMIT",
                                request.where()
                                        + ": the run's time ran out while the call waited for a"
                                        + " worker"));
            }
        }
    }

    /** One worker process and its channel. */
    private static final class Worker {
        final Process process;
        final int id;
        final DataInputStream in;
        final DataOutputStream out;
        final Deque<String> stderrTail = new ArrayDeque<>();
        volatile long idleSince;
        boolean idleCheck; // a check is scheduled; guarded by the pool

        Worker(Process process, int id) {
            this.process = process;
            this.id = id;
            this.in =
                    new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
            this.out =
                    new DataOutputStream(
                            new BufferedOutputStream(process.getOutputStream(), 1 << 16));
            Thread drain = new Thread(this::drainStderr, "sandjar-worker-" + id + "-stderr");
            drain.setDaemon(true);
            drain.start();
        }

        private void drainStderr() {
            try (BufferedReader r =
                    new BufferedReader(
                            new InputStreamReader(
                                    process.getErrorStream(), StandardCharsets.UTF_8))) {
                char[] buf = new char[512];
                StringBuilder line = new StringBuilder();
                int n;
                while ((n = r.read(buf)) > 0) {
                    for (int i = 0; i < n; i++) {
                        char c = buf[i];
                        if (c == '\n' || line.length() >= 500) {
                            keep(line.toString());
                            line.setLength(0);
                        } else {
                            line.append(c);
                        }
                    }
                }
                if (line.length() > 0) {
                    keep(line.toString());
                }
            } catch (IOException ended) {
                // the process is gone
            }
        }

        private void keep(String line) {
            LOG.fine(() -> "host worker " + id + ": " + line);
            synchronized (stderrTail) {
                stderrTail.addLast(line);
                if (stderrTail.size() > STDERR_TAIL) {
                    stderrTail.removeFirst();
                }
            }
        }

        String tail() {
            synchronized (stderrTail) {
                return String.join("\n", stderrTail);
            }
        }

        void close() {
            try {
                out.close(); // the worker reads the end of its input and exits
            } catch (IOException ignored) {
                // already gone
            }
            process.destroy();
        }
    }
}
