package dev.sandjar.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The threads in-process host work runs on: daemon, named, and on Linux each given a nice value of
 * {@value #NICE} as it starts (with {@code renice} on its own thread id, read from {@code
 * /proc/thread-self}), so a tenant's parsing yields the CPU to every run's guest code, as the
 * worker processes (started under {@code nice}) do. Java's own thread priorities do nothing on
 * Linux unless the JVM runs with {@code -XX:ThreadPriorityPolicy=1} as root. Where the platform
 * lacks either, the threads keep the JVM's priority; nothing else changes.
 */
final class HostThreads {
    static final int NICE = 10;

    private static final Logger LOG = Logger.getLogger(HostThreads.class.getName());
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");
    private static final Path RENICE = Path.of("/usr/bin/renice");

    private HostThreads() {}

    static ThreadFactory factory(String prefix) {
        AtomicInteger n = new AtomicInteger();
        boolean renice = Files.isExecutable(RENICE) && Files.exists(THREAD_SELF);
        return r -> {
            Thread t =
                    new Thread(
                            () -> {
                                if (renice) {
                                    lowerOwnPriority();
                                }
                                r.run();
                            },
                            prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Gives the calling thread (and only it: Linux nice values are per thread) nice 10. */
    private static void lowerOwnPriority() {
        try {
            String tid = Files.readSymbolicLink(THREAD_SELF).getFileName().toString();
            Process p =
                    new ProcessBuilder(RENICE.toString(), "-n", String.valueOf(NICE), "-p", tid)
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (Exception e) {
            LOG.fine(() -> "host work keeps the JVM's priority: " + e);
        }
    }
}
