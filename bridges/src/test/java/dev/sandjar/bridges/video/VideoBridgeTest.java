package dev.sandjar.bridges.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.audio.Audio;
import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * video.* from guest code: handles passed to audio and image, workspace inputs through the
 * workspace's containment. Skipped only when the host has no ffmpeg.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VideoBridgeTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;
    static Path root;
    static String clip;

    @BeforeAll
    static void start(Sandbox shared, @TempDir Path dir) throws Exception {
        sandbox = shared;
        Assumptions.assumeTrue(VideoConfig.defaults().available(), "ffmpeg is not installed");
        root = dir.resolve("ws");
        Files.createDirectories(root);
        List<String> argv =
                new ArrayList<>(
                        List.of(
                                VideoConfig.defaults().ffmpeg().orElseThrow().toString(),
                                "-hide_banner",
                                "-loglevel",
                                "error",
                                "-y",
                                "-f",
                                "lavfi",
                                "-i",
                                "testsrc=size=64x48:rate=10:duration=2",
                                "-f",
                                "lavfi",
                                "-i",
                                "sine=frequency=440:sample_rate=8000:duration=2",
                                "-c:v",
                                "libx264",
                                "-pix_fmt",
                                "yuv420p",
                                "-c:a",
                                "aac",
                                "-shortest",
                                root.resolve("clip.mp4").toString()));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        byte[] bytes = Files.readAllBytes(root.resolve("clip.mp4"));
        clip = "data:video/mp4;base64," + Base64.getEncoder().encodeToString(bytes);
        Files.createSymbolicLink(root.resolve("link.mp4"), root.resolve("clip.mp4"));
    }

    static Object run(String code, boolean workspace) {
        Media.Builder mb = Media.builder();
        List<Bridge> extra = new ArrayList<>();
        if (workspace) {
            WorkspaceBridge ws = WorkspaceBridge.create(root);
            mb.withWorkspace(ws);
            extra.add(ws.bridge());
        }
        Media media = mb.build();
        String prelude =
                "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                        + " return `${e.name} ${e.code}: ${e.message}`; } };\n"
                        + "const clip = { type: 'video', uri: '"
                        + clip
                        + "' };\n";
        RunRequest.Builder b =
                RunRequest.builder(prelude + code)
                        .bridge(GuestHelpers.bridge())
                        .bridge(media.bridge())
                        .bridge(Audio.create(media).bridge())
                        .bridge(Video.create(media, VideoConfig.defaults()).bridge());
        extra.forEach(b::bridge);
        return sandbox.run(b.build()).valueOrThrow();
    }

    @Test
    void handlesPassBetweenVideoAudioAndImage() {
        Object out =
                run(
                        "const t = await video.trim(clip, { start: 0.5, end: 1.5 });\n"
                                + "const r = await video.rotate(t, 90);\n"
                                + "const i = await video.info(r);\n"
                                + "const a = await video.extractAudio(clip);\n"
                                + "const ai = await audio.info(await audio.trim(a, { end: 1 }));\n"
                                + "const f = await video.extractFrame(r, { time: 0.2 });\n"
                                + "const png = await media.bytes(f);\n"
                                + "return [t.type, t.mimeType, i.width, i.height,"
                                + " Math.round(i.duration * 10) / 10, a.type, a.mimeType,"
                                + " ai.sampleRate, ai.frames, f.type, f.mimeType,"
                                + " Array.from(png.subarray(1, 4)).map((c) =>"
                                + " String.fromCharCode(c)).join('')];",
                        false);
        assertEquals(
                List.of(
                        "video",
                        "video/mp4",
                        48L,
                        64L,
                        1L, // a whole number crosses as an integer
                        "audio",
                        "audio/wav",
                        8000L,
                        8000L,
                        "image",
                        "image/png",
                        "PNG"),
                out);
    }

    @Test
    void workspaceInputsAreContained() {
        Object out =
                run(
                        "const i = await video.info('clip.mp4');\n"
                                + "return [i.width, await attempt(() => video.info('link.mp4')),"
                                + " await attempt(() => video.info('../clip.mp4'))];",
                        true);
        List<?> list = (List<?>) out;
        assertEquals(64L, list.get(0));
        assertTrue(String.valueOf(list.get(1)).contains("SYMLINK"), String.valueOf(list.get(1)));
        assertTrue(
                String.valueOf(list.get(2)).startsWith("WorkspaceError"),
                String.valueOf(list.get(2)));
    }

    @Test
    void refusals() {
        Object out =
                run(
                        "return [await attempt(() => video.resize(clip, { width: 31 })),\n"
                                + " await attempt(() => video.rotate(clip, { degrees: 1.5 })),\n"
                                + " await attempt(() => video.extractFrame(clip, { format: 3 })),\n"
                                + " await attempt(() => video.info('clip.mp4'))];",
                        false);
        assertEquals(
                List.of(
                        "MediaError INVALID_ARGUMENT: video.resize: width must be an even number"
                                + " of pixels up to 4096 (H.264 needs even sizes), got 31",
                        "MediaError INVALID_ARGUMENT: video.rotate: degrees must be a whole"
                                + " number, got 1.5",
                        "TypeError INVALID_ARGUMENT: video.extractFrame: argument 3 (format) must"
                                + " be a string, got a number",
                        "MediaError NOT_GRANTED: video.info: 'clip.mp4' is a workspace path, and"
                                + " this run has no workspace"),
                out);
    }
}
