package dev.sandjar.bridges.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** media.*: refs (data:, workspace, https), handles of one run, and the caps. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MediaTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    static final String ATTEMPT =
            "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                    + " return `${e.name} ${e.code}: ${e.message}`; } };\n";

    static Object run(String code, Bridge... bridges) {
        RunRequest.Builder b = RunRequest.builder(ATTEMPT + code).bridge(GuestHelpers.bridge());
        for (Bridge x : bridges) {
            b.bridge(x);
        }
        return sandbox.run(b.build()).valueOrThrow();
    }

    static String dataUri(String mime, byte[] bytes) {
        return "data:" + mime + ";base64," + Base64.getEncoder().encodeToString(bytes);
    }

    @Test
    void dataUrisReadAsBytesTextAndInfo() {
        Media media = Media.create();
        Object out =
                run(
                        "const ref = { type: 'document', uri: 'data:text/plain;base64,aMOpbGxv'"
                            + " };\n"
                            + "const b = await media.bytes(ref);\n"
                            + "const info = await media.info(ref);\n"
                            + "return [Array.from(b), await media.text(ref), await"
                            + " media.text('data:,a%20b%C3%A9'), await media.text(ref, { encoding:"
                            + " 'latin1' }), info.type, info.mimeType, info.size, info.uri];",
                        media.bridge());
        assertEquals(
                List.of(
                        List.of(104L, 195L, 169L, 108L, 108L, 111L),
                        "héllo",
                        "a bé",
                        "hÃ©llo",
                        "document",
                        "text/plain",
                        6L,
                        "data:text/plain;base64,aMOpbGxv"),
                out);
    }

    @Test
    void toImageBuildsADataRefThatAnotherRunReads() {
        Media media = Media.create();
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};
        String b64 = Base64.getEncoder().encodeToString(png);
        Object ref =
                run(
                        "const r = await media.toImage(fromBase64('"
                                + b64
                                + "'), { filename: 'x.png' });\n"
                                + "return [r.type, r.uri, r.mimeType, r.filename];",
                        media.bridge());
        assertEquals(List.of("image", dataUri("image/png", png), "image/png", "x.png"), ref);
        Object again =
                run(
                        "return toBase64(await media.bytes({ type: 'image', uri: '"
                                + dataUri("image/png", png)
                                + "' }));",
                        media.bridge());
        assertEquals(b64, again);
    }

    @Test
    void longDataUrisCrossInPiecesBothWays() {
        Media media = Media.create();
        // 30,000 bytes: a uri of 40,000 characters, past four transport pieces.
        Object out =
                run(
                        "const big = new Uint8Array(30000); for (let i = 0; i < big.length; i++)"
                                + " big[i] = i % 251;\n"
                                + "const ref = await media.toDocument(big, { mimeType:"
                                + " 'application/x-test' });\n"
                                + "const back = await media.bytes(ref);\n"
                                + "let same = back.length === big.length; for (let i = 0; same &&"
                                + " i < big.length; i += 97) same = back[i] === big[i];\n"
                                + "return [typeof ref.uri, ref.uri.length, same];",
                        media.bridge());
        assertEquals(
                List.of("string", 40_000L + "data:application/x-test;base64,".length(), true), out);
    }

    @Test
    void handlesAreValidOnlyInTheRunThatMadeThem() {
        Media media = Media.create();
        // A bridge built on the same Media that stores a handle, as image and audio do.
        Bridge maker =
                Bridge.builder("maker")
                        .guest("(host) => ({ makeHandle: (s) => host.call('make', s) })")
                        .operation(
                                dev.sandjar.host.Operation.builder("make")
                                        .param(dev.sandjar.host.Param.string("text"))
                                        .handler(
                                                c ->
                                                        media.run(c.session())
                                                                .store(
                                                                        c.where(),
                                                                        new MediaData(
                                                                                MediaType.AUDIO,
                                                                                "audio/wav",
                                                                                c.string(0)
                                                                                        .getBytes(
                                                                                                StandardCharsets
                                                                                                        .UTF_8))))
                                        .build())
                        .build();
        List<?> first =
                (List<?>)
                        run(
                                "const h = makeHandle('abc');\n"
                                        + "return [h.uri, h.type, h.size, await media.text(h),"
                                        + " (await media.info(h)).mimeType, await attempt(() =>"
                                        + " media.toImage(h))];",
                                media.bridge(),
                                maker);
        String uri = (String) first.get(0);
        assertEquals(
                List.of(
                        "audio",
                        3L,
                        "abc",
                        "audio/wav",
                        "MediaError WRONG_TYPE: media.build: "
                                + uri
                                + " is an audio; this call needs an image"),
                first.subList(1, 6));
        Object later =
                run(
                        "return attempt(() => media.bytes({ type: 'audio', uri: '" + uri + "' }));",
                        media.bridge(),
                        maker);
        assertEquals(
                "MediaError NOT_FOUND: media.bytes: "
                        + uri
                        + " is not a handle of this run; handles are valid only in the run that"
                        + " made them",
                later);
    }

    @Test
    void theRunsHandleBytesAreCapped() {
        Media media =
                Media.builder()
                        .withLimits(
                                MediaLimits.builder()
                                        .withMaxInputBytes(1000)
                                        .withMaxRunBytes(2500)
                                        .build())
                        .build();
        Bridge maker =
                Bridge.builder("maker")
                        .guest("(host) => ({ makeHandle: (n) => host.call('make', n) })")
                        .operation(
                                dev.sandjar.host.Operation.builder("make")
                                        .param(dev.sandjar.host.Param.integer("n"))
                                        .handler(
                                                c ->
                                                        media.run(c.session())
                                                                .store(
                                                                        c.where(),
                                                                        new MediaData(
                                                                                MediaType.IMAGE,
                                                                                "image/png",
                                                                                new byte
                                                                                        [(int)
                                                                                                c
                                                                                                        .integer(
                                                                                                                0,
                                                                                                                0)])))
                                        .build())
                        .build();
        Object out =
                run(
                        "const tried = [];\n"
                                + "for (const n of [1000, 1000, 1000, 1001]) tried.push(await"
                                + " attempt(() => makeHandle(n)));\n"
                                + "return tried;",
                        media.bridge(),
                        maker);
        assertEquals(
                List.of(
                        "no error",
                        "no error",
                        "MediaError LIMIT: maker.make: storing 1000 more bytes would make this"
                                + " run's media handles hold 3000 bytes; the limit is 2500 bytes"
                                + " per run",
                        "MediaError TOO_LARGE: maker.make: the result is 1001 bytes; the limit is"
                                + " 1000 bytes per media payload"),
                out);
    }

    @Test
    void inputsPastTheInputCapAreRefused() {
        Media media =
                Media.builder()
                        .withLimits(MediaLimits.builder().withMaxInputBytes(100).build())
                        .build();
        String fits = dataUri("text/plain", new byte[100]);
        String over = dataUri("text/plain", new byte[105]);
        Object out =
                run(
                        "return [(await media.bytes('"
                                + fits
                                + "')).length, await attempt(() => media.bytes('"
                                + over
                                + "')), await attempt(() => media.bytes(new Uint8Array(101)))];",
                        media.bridge());
        assertEquals(
                List.of(
                        100L,
                        "MediaError TOO_LARGE: data: URI: the input is more than 100 bytes; the"
                                + " limit is 100 bytes per input",
                        "MediaError TOO_LARGE: media.bytes: the input is 101 bytes; the limit is"
                                + " 100 bytes per input"),
                out);
    }

    @Test
    void workspaceAndHttpsRefsNeedTheirGrants(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("in.txt"), "from the workspace".getBytes(StandardCharsets.UTF_8));
        String code =
                "return [await attempt(() => media.text('in.txt')), await attempt(() =>"
                    + " media.text({ type: 'document', uri: '/workspace/in.txt' })), await"
                    + " attempt(() => media.bytes('https://127.0.0.1/x.png')), await attempt(() =>"
                    + " media.bytes('ftp://x/y')), await attempt(() => media.bytes(42)), await"
                    + " attempt(() => media.bytes('../../etc/passwd'))];";
        Object none = run(code, Media.create().bridge());
        assertEquals(
                List.of(
                        "MediaError NOT_GRANTED: media.text: 'in.txt' is a workspace path, and"
                                + " this run has no workspace",
                        "MediaError NOT_GRANTED: media.text: '/workspace/in.txt' is a workspace"
                                + " path, and this run has no workspace",
                        "MediaError NOT_GRANTED: media.bytes: 'https://127.0.0.1/x.png' needs"
                                + " fetch, and this run has none",
                        "MediaError INVALID_REF: media.bytes: cannot read 'ftp://x/y'; a ref's uri"
                                + " is a sandbox://media/ handle, a data: URI",
                        "TypeError INVALID_ARGUMENT: media.bytes: expected a media ref {type, uri},"
                                + " a sandbox://media/ handle, a uri string or bytes (Uint8Array,"
                                + " ArrayBuffer), got a number",
                        "MediaError NOT_GRANTED: media.bytes: '../../etc/passwd' is a workspace"
                                + " path, and this run has no workspace"),
                none);
        WorkspaceBridge workspace = WorkspaceBridge.create(dir);
        try (Fetch fetch = Fetch.create(FetchConfig.builder().build())) {
            Media granted = Media.builder().withWorkspace(workspace).withFetch(fetch).build();
            List<?> out = (List<?>) run(code, granted.bridge(), workspace.bridge(), fetch.bridge());
            assertEquals("no error", out.get(0));
            assertEquals("no error", out.get(1));
            // The SSRF guard refuses a loopback address for media refs as for fetch itself.
            assertEquals(
                    "FetchError BLOCKED_ADDRESS",
                    ((String) out.get(2)).substring(0, "FetchError BLOCKED_ADDRESS".length()));
            assertEquals(
                    "WorkspaceError OUTSIDE_ROOT",
                    ((String) out.get(5)).substring(0, "WorkspaceError OUTSIDE_ROOT".length()));
            Object text = run("return media.text('/workspace/in.txt');", granted.bridge());
            assertEquals("from the workspace", text);
        }
    }

    @Test
    void mediaCpuIsCountedAgainstTheRun() {
        Media media =
                Media.builder()
                        .withLimits(
                                MediaLimits.builder().withMaxRunCpu(Duration.ofNanos(1)).build())
                        .build();
        List<String> seen = new ArrayList<>();
        Bridge worker =
                Bridge.builder("worker")
                        .guest("(host) => ({ work: () => host.call('work') })")
                        .operation(
                                dev.sandjar.host.Operation.builder("work")
                                        .handler(
                                                c ->
                                                        media.run(c.session())
                                                                .work(
                                                                        c.where(),
                                                                        () -> {
                                                                            long x = 0;
                                                                            for (int i = 0;
                                                                                    i < 5_000_000;
                                                                                    i++) {
                                                                                x += i * 31L ^ x;
                                                                            }
                                                                            seen.add("ran");
                                                                            return x == 42 ? 1 : 0;
                                                                        }))
                                        .build())
                        .build();
        Object out = run("await work(); return attempt(() => work());", media.bridge(), worker);
        assertEquals(1, seen.size());
        String message = (String) out;
        assertEquals(
                "MediaError LIMIT: worker.work: this run's media work has used ",
                message.substring(
                        0,
                        "MediaError LIMIT: worker.work: this run's media work has used ".length()));
        assertEquals(
                " of CPU; the limit is 0.000 ms per run",
                message.substring(message.indexOf(" of CPU")));
        assertNotEquals(-1, message.indexOf(" ms of CPU"));
    }

    @Test
    void limitsAreCheckedWhereTheyAreSet() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () -> MediaLimits.builder().withMaxEdge(40_000));
        assertEquals("maxEdge (40000) must be between 1 and 32768", e.getMessage());
        e =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                MediaLimits.builder()
                                        .withMaxRunBytes(10)
                                        .withMaxInputBytes(11)
                                        .build());
        assertEquals("maxInputBytes (11) must be <= maxRunBytes (10)", e.getMessage());
    }
}
