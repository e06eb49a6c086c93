package dev.sandjar.bridges.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.sound.sampled.AudioInputStream;
import javax.sound.sampled.AudioSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Known answers for the video operations on clips ffmpeg's lavfi sources make at test time. Skipped
 * only when the host has no ffmpeg; CI installs it.
 */
@Timeout(120)
class VideoOpsTest {
    /** A call already stopped: the run ended. */
    static final HostCall STOPPED =
            new HostCall() {
                @Override
                public String where() {
                    return "video";
                }

                @Override
                public void check() {
                    throw BridgeException.cancelled("video: the run ended");
                }

                @Override
                public boolean isStopped() {
                    return true;
                }
            };

    /** A call that is never stopped, for driving the ops outside a run. */
    static final HostCall LIVE =
            new HostCall() {
                @Override
                public String where() {
                    return "video";
                }

                @Override
                public void check() {}

                @Override
                public boolean isStopped() {
                    return false;
                }
            };

    private static final VideoConfig CONFIG = VideoConfig.defaults();
    private static final VideoOps OPS = new VideoOps(new Ffmpeg(CONFIG));

    /** 2 s of 64x48 test pattern at 10 fps with a 440 Hz tone at 8 kHz mono, H.264/AAC. */
    private static byte[] clip;

    /** 2 s of plain red 64x48 at 10 fps, no sound. */
    private static byte[] red;

    /** 1 s of a 1 kHz tone, 8 kHz mono 16-bit WAV. */
    private static byte[] tone;

    /** An MPEG-TS file outside any call's directory, which a playlist could name. */
    private static Path outside;

    @BeforeAll
    static void makeMedia(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CONFIG.available(), "ffmpeg and ffprobe are not installed");
        clip =
                lavfi(
                        dir,
                        "clip.mp4",
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
                        "-shortest");
        red =
                lavfi(
                        dir,
                        "red.mp4",
                        "-f",
                        "lavfi",
                        "-i",
                        "color=c=red:size=64x48:rate=10:duration=2",
                        "-c:v",
                        "libx264",
                        "-pix_fmt",
                        "yuv420p");
        tone =
                lavfi(
                        dir,
                        "tone.wav",
                        "-f",
                        "lavfi",
                        "-i",
                        "sine=frequency=1000:sample_rate=8000:duration=1",
                        "-c:a",
                        "pcm_s16le");
        lavfi(
                dir,
                "outside.ts",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=1000:sample_rate=8000:duration=1",
                "-c:a",
                "aac",
                "-f",
                "mpegts");
        outside = dir.resolve("outside.ts");
    }

    private static byte[] lavfi(Path dir, String name, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(CONFIG.ffmpeg().orElseThrow().toString()));
        argv.addAll(List.of("-hide_banner", "-loglevel", "error", "-y"));
        argv.addAll(List.of(args));
        argv.add(dir.resolve(name).toString());
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return Files.readAllBytes(dir.resolve(name));
    }

    private static double number(Map<String, Object> info, String key) {
        return ((Number) info.get(key)).doubleValue();
    }

    private static Map<String, Object> info(VideoOps.Encoded e) {
        return OPS.info(e.bytes(), LIVE, "t");
    }

    @Test
    void infoReadsStreams() {
        Map<String, Object> i = OPS.info(clip, LIVE, "video.info");
        assertEquals("video/mp4", i.get("mimeType"));
        assertEquals(64L, i.get("width"));
        assertEquals(48L, i.get("height"));
        assertEquals(10.0, number(i, "frameRate"));
        assertEquals("h264", i.get("videoCodec"));
        assertEquals(true, i.get("hasAudio"));
        assertEquals("aac", i.get("audioCodec"));
        assertEquals(8000L, i.get("sampleRate"));
        assertEquals(1L, i.get("channels"));
        assertEquals(2.0, number(i, "duration"), 0.1);
        assertEquals((long) clip.length, i.get("size"));
        Map<String, Object> silent = OPS.info(red, LIVE, "t");
        assertEquals(false, silent.get("hasAudio"));
        assertFalse(silent.containsKey("sampleRate"));
        Map<String, Object> wav = OPS.info(tone, LIVE, "t");
        assertEquals("audio/wav", wav.get("mimeType"));
        assertEquals(false, wav.get("hasVideo"));
        assertEquals(1.0, number(wav, "duration"), 0.01);
    }

    @Test
    void trimKeepsTheRange() {
        VideoOps.Encoded t = OPS.trim(clip, 0.5, 1.5, LIVE, "t");
        assertEquals("video/mp4", t.mimeType());
        Map<String, Object> i = info(t);
        assertEquals(1.0, number(i, "duration"), 0.15);
        assertEquals(64L, i.get("width"));
        Map<String, Object> toEnd = info(OPS.trim(clip, 1.5, Double.NaN, LIVE, "t"));
        assertEquals(0.5, number(toEnd, "duration"), 0.15);
        BridgeException late =
                assertThrows(BridgeException.class, () -> OPS.trim(clip, 5, 6, LIVE, "video.trim"));
        assertEquals("MediaError", late.name());
        assertEquals("INVALID_ARGUMENT", late.code());
        assertTrue(
                late.getMessage()
                        .startsWith(
                                "video.trim: start must be at least 0 and before the video's end"
                                        + " (2.0"),
                late.getMessage());
        BridgeException backwards =
                assertThrows(
                        BridgeException.class, () -> OPS.trim(clip, 1, 0.5, LIVE, "video.trim"));
        assertEquals("video.trim: end must be after start (1), got 0.5", backwards.getMessage());
    }

    @Test
    void resizeKeepsAspectForAMissingSide() {
        Map<String, Object> half = info(OPS.resize(clip, 32, 0, LIVE, "t"));
        assertEquals(32L, half.get("width"));
        assertEquals(24L, half.get("height"));
        Map<String, Object> both = info(OPS.resize(clip, 100, 20, LIVE, "t"));
        assertEquals(100L, both.get("width"));
        assertEquals(20L, both.get("height"));
        BridgeException odd =
                assertThrows(
                        BridgeException.class, () -> OPS.resize(clip, 33, 0, LIVE, "video.resize"));
        assertEquals(
                "video.resize: width must be an even number of pixels up to 4096 (H.264 needs even"
                        + " sizes), got 33",
                odd.getMessage());
        assertThrows(BridgeException.class, () -> OPS.resize(clip, 4098, 0, LIVE, "t"));
        assertThrows(BridgeException.class, () -> OPS.resize(clip, 0, 0, LIVE, "t"));
    }

    @Test
    void rotateTurnsThePicture() throws IOException {
        Map<String, Object> quarter = info(OPS.rotate(clip, 90, LIVE, "t"));
        assertEquals(48L, quarter.get("width"));
        assertEquals(64L, quarter.get("height"));
        Map<String, Object> back = info(OPS.rotate(clip, -90, LIVE, "t"));
        assertEquals(48L, back.get("width"));
        Map<String, Object> flip = info(OPS.rotate(clip, 180, LIVE, "t"));
        assertEquals(64L, flip.get("width"));
        BridgeException bad =
                assertThrows(
                        BridgeException.class, () -> OPS.rotate(clip, 45, LIVE, "video.rotate"));
        assertEquals("video.rotate: degrees must be 90, 180, 270 or -90, got 45", bad.getMessage());
    }

    @Test
    void addAudioGivesASilentVideoASoundTrack() {
        Map<String, Object> i = info(OPS.addAudio(red, tone, false, LIVE, "t"));
        assertEquals(true, i.get("hasAudio"));
        assertEquals(2.0, number(i, "duration"), 0.15); // as long as the video
        Map<String, Object> mixed = info(OPS.addAudio(clip, tone, true, LIVE, "t"));
        assertEquals(true, mixed.get("hasAudio"));
        BridgeException notAudio =
                assertThrows(
                        BridgeException.class,
                        () -> OPS.addAudio(clip, red, false, LIVE, "video.addAudio"));
        assertEquals("video.addAudio: the audio input has no audio stream", notAudio.getMessage());
    }

    @Test
    void extractAudioWritesAWav() throws Exception {
        VideoOps.Encoded a = OPS.extractAudio(clip, "wav", LIVE, "t");
        assertEquals("audio/wav", a.mimeType());
        try (AudioInputStream in =
                AudioSystem.getAudioInputStream(new ByteArrayInputStream(a.bytes()))) {
            assertEquals(8000f, in.getFormat().getSampleRate());
            assertEquals(16, in.getFormat().getSampleSizeInBits());
            assertEquals(2.0, in.getFrameLength() / 8000.0, 0.15);
        }
        assertEquals("audio/mpeg", OPS.extractAudio(clip, "mp3", LIVE, "t").mimeType());
        BridgeException none =
                assertThrows(
                        BridgeException.class,
                        () -> OPS.extractAudio(red, "wav", LIVE, "video.extractAudio"));
        assertEquals("UNSUPPORTED", none.code());
        assertThrows(BridgeException.class, () -> OPS.extractAudio(clip, "ogg", LIVE, "t"));
    }

    @Test
    void extractFrameShowsThePicture() throws IOException {
        VideoOps.Encoded f = OPS.extractFrame(red, 1.0, "png", LIVE, "t");
        assertEquals("image/png", f.mimeType());
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(f.bytes()));
        assertEquals(64, img.getWidth());
        assertEquals(48, img.getHeight());
        int rgb = img.getRGB(10, 10);
        assertTrue(
                (rgb >> 16 & 0xff) >= 240 && (rgb >> 8 & 0xff) <= 16 && (rgb & 0xff) <= 16,
                Integer.toHexString(rgb));
        BufferedImage jpeg =
                ImageIO.read(
                        new ByteArrayInputStream(
                                OPS.extractFrame(red, 0, "jpeg", LIVE, "t").bytes()));
        assertEquals(64, jpeg.getWidth());
        BridgeException late =
                assertThrows(
                        BridgeException.class,
                        () -> OPS.extractFrame(red, 2.5, "png", LIVE, "video.extractFrame"));
        assertEquals("MediaError", late.name());
        assertEquals("INVALID_ARGUMENT", late.code());
    }

    @Test
    void aPlaylistPosingAsAVideoIsNotFollowed() {
        // ffprobe without the format whitelist reads this as HLS and opens the file it names
        byte[] playlist =
                ("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n" + outside + "\n#EXT-X-ENDLIST\n")
                        .getBytes(StandardCharsets.UTF_8);
        BridgeException e =
                assertThrows(BridgeException.class, () -> OPS.info(playlist, LIVE, "video.info"));
        assertEquals("UNSUPPORTED", e.code());
        byte[] concat =
                ("ffconcat version 1.0\nfile " + outside + "\n").getBytes(StandardCharsets.UTF_8);
        assertEquals(
                "UNSUPPORTED",
                assertThrows(BridgeException.class, () -> OPS.info(concat, LIVE, "t")).code());
        BridgeException junk =
                assertThrows(
                        BridgeException.class,
                        () -> OPS.trim(new byte[100], 0, 1, LIVE, "video.trim"));
        assertEquals("MediaError", junk.name());
        assertTrue(
                junk.getMessage().startsWith("video.trim: the input is not a video or audio file"),
                junk.getMessage());
    }

    @Test
    void inputAndOutputCaps() {
        VideoOps small =
                new VideoOps(new Ffmpeg(VideoConfig.builder().withMaxInputBytes(1000).build()));
        BridgeException in =
                assertThrows(BridgeException.class, () -> small.info(clip, LIVE, "video.info"));
        assertEquals("TOO_LARGE", in.code());
        assertEquals(
                "video.info: an input is " + clip.length + " bytes; the limit is 1000",
                in.getMessage());

        VideoOps tiny =
                new VideoOps(new Ffmpeg(VideoConfig.builder().withMaxOutputBytes(2000).build()));
        BridgeException out =
                assertThrows(
                        BridgeException.class, () -> tiny.rotate(clip, 90, LIVE, "video.rotate"));
        assertEquals("TOO_LARGE", out.code());
        assertEquals("video.rotate: the result reached the limit of 2000 bytes", out.getMessage());

        VideoOps narrow = new VideoOps(new Ffmpeg(VideoConfig.builder().withMaxEdge(32).build()));
        BridgeException edge =
                assertThrows(BridgeException.class, () -> narrow.info(clip, LIVE, "video.info"));
        assertEquals(
                "video.info: the video is 64x48; the limit is 32 pixels per side",
                edge.getMessage());
    }

    @Test
    void wallClockProcessesAndCancellation() throws InterruptedException {
        VideoOps quick =
                new VideoOps(
                        new Ffmpeg(
                                VideoConfig.builder().withTimeout(Duration.ofMillis(1)).build()));
        BridgeException slow =
                assertThrows(
                        BridgeException.class, () -> quick.rotate(clip, 90, LIVE, "video.rotate"));
        assertEquals("TIMEOUT", slow.code());
        assertEquals("video.rotate: ffmpeg ran past the call's limit of 1 ms", slow.getMessage());

        Ffmpeg one =
                new Ffmpeg(
                        VideoConfig.builder()
                                .withMaxProcesses(1)
                                .withTimeout(Duration.ofMillis(300))
                                .build());
        one.slots().acquire();
        try {
            BridgeException busy =
                    assertThrows(
                            BridgeException.class,
                            () -> new VideoOps(one).info(clip, LIVE, "video.info"));
            assertEquals("BUSY", busy.code());
            assertEquals(
                    "video.info: 1 ffmpeg processes (the limit) stayed busy for the call's 300 ms",
                    busy.getMessage());
        } finally {
            one.slots().release();
        }
        assertEquals(1, one.slots().availablePermits());

        BridgeException cancelled =
                assertThrows(BridgeException.class, () -> OPS.info(clip, STOPPED, "t"));
        assertEquals("CANCELLED", cancelled.code());
    }
}
