package dev.sandjar.bridges.video;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the host's ffmpeg and ffprobe for one configuration: at most {@link
 * VideoConfig#maxProcesses()} at once, each in a private directory of its call, with an empty
 * environment but {@code PATH}, no stdin, its stdout and stderr read by the host with caps, and
 * killed (with anything it started) at the call's deadline or when the run ends.
 *
 * <p>The argv is always built by {@link VideoOps} from fixed words and numbers it checked; no text
 * of the guest's becomes an argument. Every input is a file this class wrote into the call's
 * directory, opened with {@link #INPUT_GUARD} before its {@code -i}: only the {@code file}
 * protocol, and only the container formats named there, so a playlist or concat script posing as a
 * video cannot make ffmpeg open another file or a URL.
 */
final class Ffmpeg {
    /** Demuxers an input may be read with (mov is mp4/m4a/3gp; matroska is webm). */
    static final String FORMATS =
            "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,flv,ogg,wav,mp3,aac,flac,aiff,au";

    static final List<String> INPUT_GUARD =
            List.of("-protocol_whitelist", "file", "-format_whitelist", FORMATS);

    private static final int STDOUT_CAP = 256 * 1024;
    private static final int STDERR_CAP = 2048;

    private final VideoConfig config;
    private final Semaphore slots;

    Ffmpeg(VideoConfig config) {
        this.config = config;
        this.slots = config.slots();
    }

    VideoConfig config() {
        return config;
    }

    /** For tests: the process slots. */
    Semaphore slots() {
        return slots;
    }

    /** A private directory for one call's files ({@code rwx------}). */
    static Path workDir() {
        try {
            return Files.createTempDirectory(
                    "sandjar-video-",
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a leftover file in the temporary directory is not worth failing the call for
        }
    }

    /** ffmpeg with {@code args} (after the program name and the fixed global options). */
    byte[] ffmpeg(
            List<String> args, Path dir, long deadlineNanos, HostCall cancelled, String where) {
        List<String> argv = new ArrayList<>();
        argv.add(config.ffmpeg().orElseThrow().toString());
        argv.addAll(List.of("-hide_banner", "-nostdin", "-loglevel", "error", "-y"));
        argv.addAll(args);
        return run(argv, dir, deadlineNanos, cancelled, where);
    }

    /** ffprobe with {@code args}; its stdout as text. */
    String ffprobe(
            List<String> args, Path dir, long deadlineNanos, HostCall cancelled, String where) {
        List<String> argv = new ArrayList<>();
        argv.add(config.ffprobe().orElseThrow().toString());
        argv.addAll(List.of("-hide_banner", "-loglevel", "error"));
        argv.addAll(args);
        return new String(run(argv, dir, deadlineNanos, cancelled, where), StandardCharsets.UTF_8);
    }

    private byte[] run(
            List<String> argv, Path dir, long deadlineNanos, HostCall cancelled, String where) {
        if (!acquire(deadlineNanos)) {
            throw VideoErrors.error(
                    "BUSY",
                    where
                            + ": "
                            + config.maxProcesses()
                            + " ffmpeg processes (the limit) stayed busy for the call's "
                            + config.timeout().toMillis()
                            + " ms");
        }
        Process process = null;
        try {
            if (cancelled.isStopped()) {
                throw BridgeException.cancelled(where + ": the run ended");
            }
            ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            pb.environment().put("LC_ALL", "C");
            process = pb.start();
            process.getOutputStream().close();
            Capture out = new Capture(process.getInputStream(), STDOUT_CAP);
            Capture err = new Capture(process.getErrorStream(), STDERR_CAP);
            out.start();
            err.start();
            ProcessCpu cpu = new ProcessCpu(process.toHandle());
            while (!process.waitFor(50, TimeUnit.MILLISECONDS)) {
                cancelled.chargeCpu(cpu.since()); // ffmpeg's threads count against the run
                if (cancelled.isStopped()) {
                    kill(process);
                    throw BridgeException.cancelled(where + ": the run ended");
                }
                if (System.nanoTime() - deadlineNanos > 0) {
                    kill(process);
                    throw timeout(where);
                }
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw timeout(where); // finished, but later than the call may take
            }
            out.join(1000);
            err.join(1000);
            if (process.exitValue() != 0) {
                throw VideoErrors.error("FAILED", where + ": " + firstLine(err.text(), dir));
            }
            if (out.overflowed()) {
                throw VideoErrors.error(
                        "FAILED", where + ": ffprobe printed more than " + STDOUT_CAP + " bytes");
            }
            return out.bytes();
        } catch (IOException e) {
            throw VideoErrors.error("UNAVAILABLE", where + ": ffmpeg could not be started");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw BridgeException.cancelled(where + ": interrupted");
        } finally {
            if (process != null && process.isAlive()) {
                kill(process);
            }
            slots.release();
        }
    }

    /** A process's CPU time (all its threads), read as it runs: /proc on Linux. */
    private static final class ProcessCpu {
        private final ProcessHandle process;
        private long seen;

        ProcessCpu(ProcessHandle process) {
            this.process = process;
        }

        /** CPU nanoseconds since the last call; 0 where the platform cannot tell. */
        long since() {
            long now =
                    process.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(seen);
            long delta = Math.max(0, now - seen);
            seen = Math.max(seen, now);
            return delta;
        }
    }

    private BridgeException timeout(String where) {
        return VideoErrors.error(
                "TIMEOUT",
                where
                        + ": ffmpeg ran past the call's limit of "
                        + config.timeout().toMillis()
                        + " ms");
    }

    private boolean acquire(long deadlineNanos) {
        try {
            long wait = Math.max(0, deadlineNanos - System.nanoTime());
            return slots.tryAcquire(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** ffmpeg's first error line, without the call's directory (a host path). */
    private static String firstLine(String stderr, Path dir) {
        String text = stderr.replace(dir.toString() + "/", "").replace(dir.toString(), "").strip();
        int nl = text.indexOf('\n');
        String line = nl < 0 ? text : text.substring(0, nl);
        return line.isEmpty() ? "ffmpeg failed" : "ffmpeg failed: " + line;
    }

    /** Reads a stream to its end on its own thread, keeping its first {@code cap} bytes. */
    private static final class Capture extends Thread {
        private final InputStream in;
        private final int cap;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private volatile boolean overflowed;

        Capture(InputStream in, int cap) {
            super("sandjar-ffmpeg-capture");
            setDaemon(true);
            this.in = in;
            this.cap = cap;
        }

        @Override
        public void run() {
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    int keep = Math.min(n, cap - kept.size());
                    if (keep > 0) {
                        kept.write(buf, 0, keep);
                    }
                    if (keep < n) {
                        overflowed = true;
                    }
                }
            } catch (IOException e) {
                // the process was killed; what was read is kept
            }
        }

        byte[] bytes() {
            return kept.toByteArray();
        }

        String text() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        boolean overflowed() {
            return overflowed;
        }
    }
}
