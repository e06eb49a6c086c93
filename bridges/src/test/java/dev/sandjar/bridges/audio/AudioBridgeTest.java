package dev.sandjar.bridges.audio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** audio.* from guest code: handles chained through transforms, sample values, errors. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AudioBridgeTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    /** One second of 8 kHz mono 16-bit; frame f holds f * 4. */
    static String ramp;

    /** Half a second of 8 kHz mono 16-bit at 8192 (0.25). */
    static String quarter;

    @BeforeAll
    static void start(Sandbox shared) throws IOException {
        sandbox = shared;
        ramp = dataUri(AudioOpsTest.wav16(8000, 1, 8000, (f, c) -> f * 4));
        quarter = dataUri(AudioOpsTest.wav16(8000, 1, 4000, (f, c) -> 8192));
    }

    static String dataUri(byte[] wav) {
        return "data:audio/wav;base64," + Base64.getEncoder().encodeToString(wav);
    }

    static Object run(String code) {
        return run(code, AudioLimits.defaults());
    }

    static Object run(String code, AudioLimits limits) {
        Media media = Media.create();
        String prelude =
                "const attempt = async (f) => { try { await f(); return 'no error'; } catch (e) {"
                        + " return `${e.name} ${e.code}: ${e.message}`; } };\n"
                        + "const ramp = { type: 'audio', uri: '"
                        + ramp
                        + "' };\nconst quarter = { type: 'audio', uri: '"
                        + quarter
                        + "' };\n"
                        + "const sample = async (h, frame) => new DataView((await"
                        + " audio.bytes(h)).buffer).getInt16(44 + 2 * frame, true);\n";
        RunRequest request =
                RunRequest.builder(prelude + code)
                        .bridge(GuestHelpers.bridge())
                        .bridge(media.bridge())
                        .bridge(Audio.create(media, limits).bridge())
                        .build();
        return sandbox.run(request).valueOrThrow();
    }

    @Test
    void transformsChainThroughHandles() {
        Object out =
                run(
                        "const t = await audio.trim(ramp, { start: 0.25, end: 0.5 });\n"
                            + "const r = await audio.reverse(t);\n"
                            + "const i = await audio.info(r);\n"
                            + "return [t.type, t.mimeType, t.uri.startsWith('sandbox://media/'),"
                            + " i.frames, i.duration, i.sampleRate, i.channels, i.bitDepth, await"
                            + " sample(t, 0), await sample(r, 0), await sample(r, 1999)];");
        assertEquals(
                List.of(
                        "audio",
                        "audio/wav",
                        true,
                        2000L,
                        0.25,
                        8000L,
                        1L,
                        16L,
                        8000L,
                        15996L,
                        8000L),
                out);
    }

    @Test
    void concatMixFadesRepeatAndNormalize() {
        Object out =
                run(
                        "const c = await audio.concat([ramp, quarter]);\n"
                                + "const m = await audio.mix([quarter, ramp], { gains: [2, 0] });\n"
                                + "const f = await audio.fadeIn(quarter, 0.25);\n"
                                + "const o = await audio.fadeOut(quarter, { duration: 0.25 });\n"
                                + "const r = await audio.repeat(quarter, 3);\n"
                                + "const n = await audio.normalize(quarter, { peak: 0.5 });\n"
                                + "return [(await audio.info(c)).frames, await sample(c, 8000),"
                                + " (await audio.info(m)).frames, await sample(m, 0), await"
                                + " sample(m, 5000), await sample(f, 0), await sample(f, 1000),"
                                + " await sample(o, 3999), (await audio.info(r)).duration, await"
                                + " sample(n, 10)];");
        assertEquals(List.of(12000L, 8192L, 8000L, 16384L, 0L, 0L, 4096L, 0L, 1.5, 16384L), out);
    }

    @Test
    void refusals() {
        Object out =
                run(
                        "return [await attempt(() => audio.trim(ramp, { start: 2 })),\n"
                            + " await attempt(() => audio.fadeIn(ramp)),\n"
                            + " await attempt(() => audio.repeat(ramp, 1.5)),\n"
                            + " await attempt(() => audio.concat(ramp)),\n"
                            + " await attempt(() => audio.mix([ramp, ramp], { gains: [1] })),\n"
                            + " await attempt(() => audio.info('data:audio/wav;base64,AAAA')),\n"
                            + " await attempt(() => audio.concat(new Array(65).fill(ramp)))];");
        assertEquals(
                List.of(
                        "MediaError INVALID_ARGUMENT: audio.trim: start must be at least 0 and"
                                + " before the clip's end (1.0 s), got 2",
                        "MediaError INVALID_ARGUMENT: audio.fadeIn: duration is required",
                        "MediaError INVALID_ARGUMENT: audio.repeat: times must be a whole number"
                                + " from 1, got 1.5",
                        "TypeError INVALID_ARGUMENT: audio.concat: expected an array of clips",
                        "MediaError INVALID_ARGUMENT: audio.mix: gains must be an array of 2"
                                + " numbers, one per clip",
                        "MediaError UNSUPPORTED: audio.info: not a WAV, AIFF or AU file this host"
                                + " can read (compressed formats such as MP3 are not read)",
                        "TypeError INVALID_ARGUMENT: audio.concat: argument 1 (clips) has 65"
                                + " items; at most 64"),
                out);
    }

    @Test
    void theSampleCapCoversEveryClipOfACall() {
        AudioLimits small = AudioLimits.builder().withMaxSamples(12000).build();
        Object out =
                run(
                        "return [await attempt(() => audio.mix([ramp, ramp])), (await"
                                + " audio.info(await audio.concat([ramp, quarter]))).frames];",
                        small);
        assertEquals(
                List.of(
                        "MediaError TOO_LARGE: audio.mix: the audio holds 16000 samples (frames x"
                                + " channels); the limit is 12000",
                        12000L),
                out);
    }
}
