package dev.sandjar.server.cli;

import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.host.HostIsolation;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.server.SandjarServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * {@code sandjar serve}: the HTTP server (docs/server.md). Prints {@code listening on
 * http://ADDR:PORT} on stdout once it accepts connections; logs go to stderr. {@code SIGTERM} (or
 * {@code SIGINT}) drains and exits 0; {@code SIGHUP} reloads the token file.
 */
final class ServeCommand {
    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar serve [--bind ADDR] [--port N] [--packs DIR]... [--tokens FILE]"
                            + " [--pool N] [--queue N]",
                    "serve options:",
                    "  --bind ADDR              address to listen on (default 127.0.0.1)",
                    "  --port N                 port (default "
                            + SandjarServer.DEFAULT_PORT
                            + "; 0 picks a free one)",
                    "  --packs DIR              add a pack search path (untrusted; repeatable)",
                    "  --tokens FILE            token file: {\"tokens\": [{\"name\", \"sha256\","
                            + " \"policy\"}]}",
                    "  --insecure-no-auth       serve without tokens (loopback addresses only)",
                    "  --pool N                 engine instances (default: one per core)",
                    "  --queue N                runs admitted beyond the pool (default 4 x pool)",
                    "  --host-workers N         worker processes for document parsing and canvas"
                            + " (default: the pool size, at most 4; 0 runs them in this JVM)",
                    "  --host-worker-heap-mb N  each worker's heap (default 512, 64..16384)",
                    "  --host-memory-mb N       host memory all runs may hold in this JVM"
                            + " (default: half the heap)",
                    "  --grace-seconds N        drain grace on SIGTERM (default "
                            + SandjarServer.DEFAULT_DRAIN_GRACE.toSeconds()
                            + ", 0..3600)",
                    "  --max-body-bytes N       request body limit (default "
                            + SandjarServer.DEFAULT_MAX_BODY_BYTES
                            + ")",
                    "  --warm-up-ms N           engine warm-up before /readyz passes (default "
                            + SandjarServer.DEFAULT_WARM_UP.toMillis()
                            + ", 0..600000)",
                    "  --workspaces DIR         root of the runs' workspaces (DIR/TOKEN/ID)",
                    "  --video                  let runs ask for video (the host's ffmpeg), where"
                            + " their token's policy allows it",
                    "  --sessions-dir DIR       keep sessions in DIR, written after each call"
                            + " (authenticated with the key DIR/.key, made on first start) and"
                            + " restored in the background on start",
                    "  --secrets-env PREFIX     hold the environment's PREFIX<NAME> variables as"
                            + " secrets policies may grant");

    private ServeCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        SandjarServer.Builder b =
                SandjarServer.builder().packIndex(ModuleCatalog.defaultIndexDirectory());
        boolean tokensFile = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--bind" -> b.bind(SandjarCli.value(args, ++i, a));
                case "--port" -> b.port((int) SandjarCli.number(args, ++i, a, 0, 65535));
                case "--packs" -> b.packs(SandjarCli.directory(SandjarCli.value(args, ++i, a), a));
                case "--tokens" -> {
                    b.tokensFile(file(SandjarCli.value(args, ++i, a), a));
                    tokensFile = true;
                }
                case "--insecure-no-auth" -> b.insecureNoAuth();
                case "--pool" -> b.pool((int) SandjarCli.number(args, ++i, a, 1, 256));
                case "--host-workers" ->
                        b.hostWorkers(
                                (int)
                                        SandjarCli.number(
                                                args, ++i, a, 0, HostIsolation.MAX_WORKERS));
                case "--host-worker-heap-mb" ->
                        b.hostWorkerHeapMb((int) SandjarCli.number(args, ++i, a, 64, 16384));
                case "--host-memory-mb" ->
                        b.hostMemoryMb(SandjarCli.number(args, ++i, a, 16, 1L << 30));
                case "--queue" -> b.queue((int) SandjarCli.number(args, ++i, a, 0, 100_000));
                case "--grace-seconds" ->
                        b.drainGrace(Duration.ofSeconds(SandjarCli.number(args, ++i, a, 0, 3600)));
                case "--max-body-bytes" ->
                        b.maxBodyBytes(SandjarCli.number(args, ++i, a, 1024, 1L << 30));
                case "--warm-up-ms" ->
                        b.warmUp(Duration.ofMillis(SandjarCli.number(args, ++i, a, 0, 600_000)));
                case "--workspaces" ->
                        b.workspaces(SandjarCli.directory(SandjarCli.value(args, ++i, a), a));
                case "--video" -> {
                    VideoConfig video = VideoConfig.defaults();
                    if (!video.available()) {
                        throw new IllegalArgumentException(
                                "--video needs ffmpeg and ffprobe on PATH (Debian package ffmpeg)");
                    }
                    b.video(video);
                }
                case "--sessions-dir" ->
                        b.sessionsDir(SandjarCli.directory(SandjarCli.value(args, ++i, a), a));
                case "--secrets-env" ->
                        b.secrets(SecretStore.fromEnvironment(SandjarCli.value(args, ++i, a)));
                default -> throw new IllegalArgumentException("unknown serve option " + a);
            }
        }
        SandjarServer server;
        try {
            server = b.build();
        } catch (IllegalStateException | IllegalArgumentException e) {
            err.println("error: serve: " + e.getMessage());
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        if (!Signals.handle("TERM", stop::countDown)) {
            err.println(
                    "warning: serve: SIGTERM cannot be handled (ignored since the process started,"
                            + " or not on this platform): kill will not drain and stop the server;"
                            + " start it with the signal's default handling (env"
                            + " --default-signal=TERM)");
        }
        Signals.handle("INT", stop::countDown);
        boolean reloads =
                Signals.handle(
                        "HUP",
                        () -> {
                            try {
                                server.reloadTokens();
                            } catch (Exception e) {
                                err.println(
                                        "error: serve: token file not reloaded, the old one stays: "
                                                + e.getMessage());
                            }
                        });
        if (!reloads && tokensFile) {
            err.println(
                    "warning: serve: SIGHUP cannot be handled (ignored since the process started,"
                            + " as nohup does, or not on this platform): kill -HUP will not reload"
                            + " the token file; restart the server to change tokens, or start it"
                            + " with the signal's default handling (env --default-signal=HUP)");
        }
        try {
            server.start();
        } catch (RuntimeException e) {
            server.close();
            err.println("error: serve: cannot listen on the address: " + e.getMessage());
            return 1;
        }
        out.println("listening on " + server.url());
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop();
        return 0;
    }

    private static Path file(String text, String flag) {
        Path p = Path.of(text);
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException(flag + " " + text + ": not a file");
        }
        return p;
    }
}
