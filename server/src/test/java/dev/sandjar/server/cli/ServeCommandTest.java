package dev.sandjar.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sandjar serve} as a real process: the one stdout line, SIGHUP reloading the token file,
 * SIGTERM draining a run in flight and exiting 0, and the refusals at start.
 */
class ServeCommandTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir Path dir;

    @Test
    void servesReloadsTokensOnHupAndDrainsOnTerm() throws Exception {
        Path tokens = dir.resolve("tokens.json");
        writeTokens(tokens, "first", "token-one");
        Process p = serve("--tokens", tokens.toString(), "--pool", "1", "--grace-seconds", "20");
        try {
            String url = listeningUrl(p);
            assertTrue(url.matches("http://127\\.0\\.0\\.1:\\d+"), url);
            assertEquals(200, run(url, "token-one", "return 1").statusCode());

            writeTokens(tokens, "second", "token-two");
            signal(p, "HUP");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int status = 0;
            while (System.nanoTime() < deadline
                    && (status = run(url, "token-two", "return 2").statusCode()) != 200) {
                Thread.sleep(100);
            }
            assertEquals(
                    200,
                    status,
                    "the reloaded token file's token is accepted; the server's stderr: "
                            + stderr(p));
            assertEquals(401, run(url, "token-one", "return 1").statusCode());

            CompletableFuture<HttpResponse<String>> inFlight =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return run(
                                            url,
                                            "token-two",
                                            "await sleep(1500); return 'finished'");
                                } catch (Exception e) {
                                    throw new RuntimeException(e);
                                }
                            });
            Thread.sleep(500); // the run is in flight
            p.destroy(); // SIGTERM
            HttpResponse<String> drained = inFlight.get(30, TimeUnit.SECONDS);
            assertEquals(200, drained.statusCode());
            assertTrue(drained.body().contains("\"value\":\"finished\""), drained.body());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits after draining");
            assertEquals(0, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void saysSoWhenHupIsIgnoredAndTokensCannotBeReloaded() throws Exception {
        Path tokens = dir.resolve("tokens.json");
        writeTokens(tokens, "first", "token-one");
        Process p = serveWithSignals("--ignore-signal=HUP", "--tokens", tokens.toString());
        try {
            String url = listeningUrl(p);
            assertEquals(200, run(url, "token-one", "return 1").statusCode());
            assertTrue(
                    stderr(p)
                            .contains(
                                    "warning: serve: SIGHUP cannot be handled (ignored since the"
                                        + " process started, as nohup does, or not on this"
                                        + " platform): kill -HUP will not reload the token file"),
                    stderr(p));
            assertFalse(stderr(p).contains("SIGTERM cannot be handled"), stderr(p));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void refusesToStartWithoutTokensUnlessInsecureOnLoopback() throws Exception {
        Process none = serve();
        assertEquals(1, exitOf(none));
        assertTrue(stderr(none).contains("--insecure-no-auth"));

        Process wide = serve("--insecure-no-auth", "--bind", "0.0.0.0");
        assertEquals(1, exitOf(wide));
        assertTrue(stderr(wide).contains("loopback"));
    }

    @Test
    void aTokenFileWithAnUnknownPolicyFieldStopsTheStartNamingIt() throws Exception {
        Path tokens = dir.resolve("bad.json");
        Files.writeString(
                tokens,
                "{\"tokens\":[{\"name\":\"ci\",\"sha256\":\""
                        + sha256("x")
                        + "\",\"policy\":{\"maxTimoutMs\":5}}]}");
        Process p = serve("--tokens", tokens.toString());
        assertEquals(1, exitOf(p));
        assertTrue(stderr(p).contains("maxTimoutMs"), "names the field");
    }

    private Process serve(String... args) throws IOException {
        // The default handling of HUP and TERM, whatever this JVM inherited: under nohup (a CI
        // script started in the background) HUP arrives ignored, and the server could not see it.
        return serveWithSignals("--default-signal=HUP,TERM", args);
    }

    private Process serveWithSignals(String signals, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("env");
        cmd.add(signals);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SandjarCli.class.getName());
        cmd.add("serve");
        cmd.add("--port");
        cmd.add("0");
        cmd.add("--warm-up-ms");
        cmd.add("0");
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectError(dir.resolve("stderr.txt").toFile()).start();
    }

    private String stderr(Process p) throws IOException {
        return Files.readString(dir.resolve("stderr.txt"));
    }

    private static int exitOf(Process p) throws InterruptedException {
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exits");
        return p.exitValue();
    }

    private static String listeningUrl(Process p) throws IOException {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null && line.startsWith("listening on "), "first line: " + line);
        return line.substring("listening on ".length());
    }

    private static HttpResponse<String> run(String url, String token, String code)
            throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(url + "/api/runs"))
                        .header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"code\":\"" + code.replace("'", "\\u0027") + "\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void signal(Process p, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(p.pid())).start();
        assertEquals(0, kill.waitFor());
    }

    private static void writeTokens(Path file, String name, String token) throws Exception {
        Files.writeString(
                file,
                "{\"tokens\":[{\"name\":\""
                        + name
                        + "\",\"sha256\":\""
                        + sha256(token)
                        + "\",\"policy\":{\"capabilities\":[\"console\",\"sleep\"]}}]}");
    }

    private static String sha256(String s) throws Exception {
        return HexFormat.of()
                .formatHex(
                        MessageDigest.getInstance("SHA-256")
                                .digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
