package dev.sandjar.packs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote catalog against a real HTTP server that serves a local catalog's pack list and
 * deliveries ({@link CatalogServer}), and changes them where a test needs a bad answer: every bad
 * answer is an error naming the request and what was wrong, and nothing of it reaches a guest or
 * the cache. The parity of outcomes with a local catalog is the server module's {@code ParityTest}.
 */
class RemoteCatalogTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX =
            SandboxExtension.poolSize(1).preloadAnalyzer().ignoringThreads("sandjar-wasm");

    /** Made before the leak check's baseline: JDK 17's client has no close(). */
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static final String GEO = "import { sum } from '@acme/geo';\nreturn await sum(2, 3);";

    /** A host module the server's registry has and a bare replica's does not. */
    static final HostModules HOSTS =
            HostModules.builder()
                    .add(
                            HostModule.builder("shout", "@acme/shout")
                                    .export(
                                            Operation.builder("shout")
                                                    .param(Param.string("text"))
                                                    .handler(
                                                            call ->
                                                                    call.string(0)
                                                                            .toUpperCase(
                                                                                    java.util.Locale
                                                                                            .ROOT))
                                                    .build())
                                    .build())
                    .build();

    @TempDir static Path root;
    static Sandbox sandbox;
    static ModuleCatalog served;
    static CatalogServer server;

    @BeforeAll
    static void start(Sandbox shared) throws IOException {
        sandbox = shared;
        Path packs = root.resolve("packs");
        write(
                packs.resolve("geo/package.json"),
                "{\"name\": \"@acme/geo\", \"version\": \"1.0.0\", \"sandjar\": {\"apiVersion\": 1,"
                        + " \"sandboxModules\": ["
                        + "{\"name\": \".\", \"kind\": \"js\", \"file\": \"geo.js\"},"
                        + "{\"name\": \"big\", \"kind\": \"js\", \"file\": \"big.js\"},"
                        + "{\"name\": \"math\", \"kind\": \"wasm\", \"file\": \"math.wasm\","
                        + " \"memoryPagesMax\": 1, \"exports\": [\"add\"]}],"
                        + " \"internal\": [\"lib/util.js\"]}}");
        write(
                packs.resolve("geo/geo.js"),
                "import { double } from './lib/util.js';\n"
                        + "import { add } from '@acme/geo/math';\n"
                        + "export async function sum(a, b) { return double(await add(a, b)); }\n");
        write(packs.resolve("geo/lib/util.js"), "export const double = (x) => x * 2;\n");
        write(packs.resolve("geo/big.js"), "export const text = '" + "x".repeat(4000) + "';\n");
        Files.createDirectories(packs.resolve("geo"));
        Files.write(packs.resolve("geo/math.wasm"), WasmBytes.add("add"));
        write(
                packs.resolve("shout/package.json"),
                "{\"name\": \"@acme/shout\", \"version\": \"2.0.0\", \"sandjar\": {\"apiVersion\":"
                        + " 1, \"sandboxModules\": [{\"name\": \".\", \"kind\": \"host\", \"host\":"
                        + " \"shout\"}]}}");
        served =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(false)
                        .hostModules(HOSTS)
                        .searchPath(packs)
                        .build();
        assertEquals(List.of(), served.diagnostics());
        server = new CatalogServer(served);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void untamper() {
        server.tamper = UnaryOperator.identity();
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A replica: the server's catalog, the test host module, the WASM pack's local copy. */
    private static RemoteCatalog.Builder replica() {
        return RemoteCatalog.builder(sandbox, server.uri())
                .withToken(CatalogServer.TOKEN)
                .withHttpClient(HTTP)
                .withLocalCatalog(served);
    }

    private static Object run(CatalogResolution r, String code) {
        assertTrue(r.isOk(), r.errors().toString());
        RunResult result =
                sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
        assertTrue(result.isOk(), result.toString());
        return result.value();
    }

    private static String failure(Runnable r) {
        return assertThrows(RemoteCatalogException.class, r::run).getMessage();
    }

    @Test
    void aBodyRunsOnModulesFetchedFromTheServer() {
        RemoteCatalog remote = replica().build();
        assertEquals(served.summaries(), remote.summaries());
        assertEquals(10, ((Number) run(remote.resolveBody(GEO), GEO)).intValue());
        String shout = "import { shout } from '@acme/shout';\nreturn await shout('hi');";
        assertEquals("HI", run(remote.resolveBody(shout), shout));
        // Graph ids, not paths: the entry, its internal file and its sibling's facade.
        assertTrue(server.requests.contains("/api/sandbox-modules/@acme/geo::lib/util.js"));
        assertTrue(server.requests.contains("/api/sandbox-modules/@acme/geo/math::facade"));
    }

    @Test
    void refusalsAreTheLocalCatalogs() {
        RemoteCatalog remote = replica().build();
        for (String code :
                List.of(
                        "import fs from 'node:fs';",
                        "import x from '@acme/geo/lib/util.js';",
                        "import x from '@acme/nope';",
                        "import x from '@acme/geo/nope';",
                        "import x from '../x.js';")) {
            assertEquals(
                    served.resolveBody(code).errors(), remote.resolveBody(code).errors(), code);
            assertFalse(remote.resolveBody(code).isOk(), code);
        }
    }

    @Test
    void aReplicaWithoutTheHostSideGetsAnErrorNamingTheModule() {
        ModuleCatalog bare =
                ModuleCatalog.builder(sandbox)
                        .shippedPacks(false)
                        .hostModules(HostModules.none())
                        .build();
        RemoteCatalog remote = replica().withLocalCatalog(bare).build();
        CatalogResolution host = remote.resolveBody("import { shout } from '@acme/shout';");
        assertEquals(1, host.errors().size(), host.errors().toString());
        assertEquals(
                "'@acme/shout': @acme/shout runs on the host as host module 'shout', which this"
                        + " process cannot run: 'shout' is not a host module of this Sandjar"
                        + " (known: )",
                host.errors().get(0).toString());
        CatalogResolution wasm = remote.resolveBody("import { add } from '@acme/geo/math';");
        assertEquals(
                "'@acme/geo/math': @acme/geo/math is a WebAssembly module, which runs on the host,"
                        + " and this process has no local copy of pack @acme/geo to run it from;"
                        + " give the remote catalog a local catalog that serves it",
                wasm.errors().get(0).toString());
        // The JS module that imports it cannot run either, and says which module is missing.
        CatalogResolution geo = remote.resolveBody(GEO);
        assertTrue(geo.errors().get(0).message().contains("@acme/geo/math is a WebAssembly"));
    }

    @Test
    void aLocalWasmBinaryThatDiffersFromTheServersIsRefused(@TempDir Path other)
            throws IOException {
        Files.createDirectories(other.resolve("geo/lib"));
        for (String f : List.of("package.json", "geo.js", "big.js", "lib/util.js")) {
            Files.copy(root.resolve("packs/geo/" + f), other.resolve("geo/" + f));
        }
        Files.write(other.resolve("geo/math.wasm"), WasmBytes.add("add")); // same function...
        byte[] changed = WasmBytes.add("add");
        changed[changed.length - 2] = 0x6b; // ...now i32.sub
        Files.write(other.resolve("geo/math.wasm"), changed);
        ModuleCatalog mine =
                ModuleCatalog.builder(sandbox).shippedPacks(false).searchPath(other).build();
        RemoteCatalog remote = replica().withLocalCatalog(mine).build();
        String message =
                remote.resolveBody("import { add } from '@acme/geo/math';")
                        .errors()
                        .get(0)
                        .message();
        assertTrue(
                message.startsWith("this process's copy of @acme/geo/math has graph digest sha256:")
                        && message.endsWith("; install the version the server has"),
                message);
    }

    @Test
    void aBodyThatIsNotItsStatedSha256IsRefused() {
        RemoteCatalog remote = replica().build();
        server.tamper =
                a ->
                        a.path().endsWith("/@acme/geo::lib/util.js")
                                ? a.body("export const double = (x) => x * 3;\n".getBytes())
                                : a;
        String message = failure(() -> remote.resolveBody(GEO));
        assertTrue(
                message.startsWith(
                                "GET "
                                        + server.uri()
                                        + "/api/sandbox-modules/@acme/geo::lib/util.js: the"
                                        + " server's answer for module '@acme/geo::lib/util.js'"
                                        + " has a body whose SHA-256 is ")
                        && message.endsWith("its X-Content-Sha256 header states; it was not used"),
                message);
    }

    @Test
    void aGraphDigestThatDoesNotMatchIsRefused() {
        RemoteCatalog remote = replica().build();
        // A consistent body and SHA-256, but not the file the graph digest was computed over.
        String other = "export const double = (x) => x * 3;\n";
        server.tamper =
                a ->
                        a.path().endsWith("/@acme/geo::lib/util.js")
                                ? a.body(other.getBytes(StandardCharsets.UTF_8))
                                        .with("X-Content-Sha256", Digests.sha256Hex(other))
                                : a;
        String message = failure(() -> remote.resolveBody(GEO));
        assertTrue(
                message.startsWith(
                                "module '@acme/geo::lib/util.js' from the server states graph"
                                        + " digest sha256:")
                        && message.contains("but its graph as delivered has sha256:"),
                message);
    }

    @Test
    void importsThatAreNotTheStatedDependenciesAreRefused() {
        RemoteCatalog remote = replica().build();
        server.tamper =
                a ->
                        a.path().endsWith("/api/sandbox-modules/@acme/geo")
                                ? a.with("X-Sandbox-Module-Dependencies", "@acme/geo::lib/util.js")
                                : a;
        assertEquals(
                "module '@acme/geo::geo.js' from the server imports '@acme/geo/math', which is not"
                        + " a module of its pack it was delivered with",
                failure(() -> remote.resolveBody(GEO)));
    }

    @Test
    void aMissingModuleIsA404NamingIt() {
        RemoteCatalog remote = replica().build();
        server.tamper =
                a -> a.path().endsWith("::lib/util.js") ? a.status(404).body(new byte[0]) : a;
        assertEquals(
                "GET "
                        + server.uri()
                        + "/api/sandbox-modules/@acme/geo::lib/util.js: the server delivers no"
                        + " module '@acme/geo::lib/util.js' to this token (404)",
                failure(() -> remote.resolveBody(GEO)));
    }

    @Test
    void aRefusedTokenIsA401() {
        String message =
                failure(
                        () ->
                                RemoteCatalog.builder(sandbox, server.uri())
                                        .withToken("wrong")
                                        .withHttpClient(HTTP)
                                        .build());
        assertEquals(
                "GET "
                        + server.uri()
                        + "/api/packs: the server refused the token (401): it is missing, wrong or"
                        + " revoked",
                message);
    }

    @Test
    void noAnswerWithinTheTimeoutIsAnError() {
        RemoteCatalog remote = replica().withTimeout(Duration.ofMillis(200)).build();
        server.tamper = a -> a.path().contains("/api/sandbox-modules/") ? a.delay(3000) : a;
        assertEquals(
                "GET " + server.uri() + "/api/sandbox-modules/@acme/geo: no answer within 200 ms",
                failure(() -> remote.resolveBody(GEO)));
    }

    @Test
    void aBodyOverTheBoundIsRefused() {
        // big.js is 4,000-odd bytes; one byte under it is refused, its exact size is not.
        int size =
                served.authorizeDelivery("@acme/geo/big")
                        .source()
                        .getBytes(StandardCharsets.UTF_8)
                        .length;
        String code = "import { text } from '@acme/geo/big';\nreturn text.length;";
        RemoteCatalog small = replica().withMaxModuleBytes(size - 1).build();
        assertEquals(
                "GET "
                        + server.uri()
                        + "/api/sandbox-modules/@acme/geo/big: module '@acme/geo/big' is "
                        + size
                        + " bytes, over the bound of "
                        + (size - 1)
                        + " bytes",
                failure(() -> small.resolveBody(code)));
        // Without a Content-Length the bound holds while the body streams in.
        server.tamper = a -> a.withoutLength();
        assertEquals(
                "GET "
                        + server.uri()
                        + "/api/sandbox-modules/@acme/geo/big: module '@acme/geo/big' is over the"
                        + " bound of "
                        + (size - 1)
                        + " bytes",
                failure(() -> small.resolveBody(code)));
        RemoteCatalog exact = replica().withMaxModuleBytes(size).build();
        assertEquals(4000, ((Number) run(exact.resolveBody(code), code)).intValue());
    }

    @Test
    void graphsAreCachedOnDiskAndVerifiedWhenReadBack(@TempDir Path cache) throws IOException {
        RemoteCatalog first = replica().withCacheDirectory(cache).build();
        assertEquals(10, ((Number) run(first.resolveBody(GEO), GEO)).intValue());
        List<Path> files;
        try (Stream<Path> s = Files.list(cache)) {
            files = s.toList();
        }
        assertEquals(1, files.size(), files.toString());
        String digest =
                served.summaries().stream()
                        .filter(m -> m.specifier().equals("@acme/geo"))
                        .findFirst()
                        .orElseThrow()
                        .graphDigest();
        assertEquals(
                digest.substring("sha256:".length()) + ".json",
                files.get(0).getFileName().toString());

        // A second process with the same directory needs no module from the server.
        server.tamper = a -> a.path().contains("/api/sandbox-modules/") ? a.status(500) : a;
        RemoteCatalog second = replica().withCacheDirectory(cache).build();
        assertEquals(10, ((Number) run(second.resolveBody(GEO), GEO)).intValue());

        // A file changed on disk is not used: it is deleted and the graph fetched again.
        String stored = Files.readString(files.get(0));
        Files.writeString(files.get(0), stored.replace("x * 2", "x * 3"));
        RemoteCatalog third = replica().withCacheDirectory(cache).build();
        assertTrue(failure(() -> third.resolveBody(GEO)).contains("answered 500"));
        assertFalse(Files.exists(files.get(0)));
        server.tamper = UnaryOperator.identity();
        assertEquals(10, ((Number) run(third.resolveBody(GEO), GEO)).intValue());
        assertEquals(stored, Files.readString(files.get(0)));
    }

    @Test
    void builderValuesAreCheckedWhereTheyAreSet() {
        RemoteCatalog.Builder b = RemoteCatalog.builder(sandbox, server.uri());
        assertEquals(
                "timeout (PT0S) must be from 1 ms to PT10M",
                assertThrows(InvalidRequestException.class, () -> b.withTimeout(Duration.ZERO))
                        .getMessage());
        assertEquals(
                "timeout (PT10M0.001S) must be from 1 ms to PT10M",
                assertThrows(
                                InvalidRequestException.class,
                                () -> b.withTimeout(Duration.ofMinutes(10).plusMillis(1)))
                        .getMessage());
        assertEquals(
                "maxModuleBytes (16777217) must be from 1 to 16777216",
                assertThrows(
                                InvalidRequestException.class,
                                () ->
                                        b.withMaxModuleBytes(
                                                RemoteCatalog.MAX_MODULE_BYTES_CEILING + 1))
                        .getMessage());
        assertThrows(InvalidRequestException.class, () -> b.withMaxModuleBytes(0));
        assertEquals(
                "server 'file:/etc' must be an http or https URL with a host and no query or"
                        + " fragment",
                assertThrows(
                                InvalidRequestException.class,
                                () -> RemoteCatalog.builder(sandbox, URI.create("file:/etc")))
                        .getMessage());
        assertThrows(InvalidRequestException.class, () -> b.withToken("two words"));
        assertThrows(InvalidRequestException.class, () -> b.trust("Not A Pack"));
    }
}
