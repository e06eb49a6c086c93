package dev.sandjar.bridges.audio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.InvalidRequestException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import javax.sound.sampled.AudioFileFormat;
import javax.sound.sampled.AudioFormat;
import javax.sound.sampled.AudioInputStream;
import javax.sound.sampled.AudioSystem;
import org.junit.jupiter.api.Test;

/**
 * Known answers for the audio transforms on PCM generated here; the input files are written by the
 * JDK's own writers so the reader is not only checked against its own writer.
 */
class AudioOpsTest {
    private static final AudioLimits LIMITS = AudioLimits.defaults();
    private static final double ONE_16 = 1.0 / 32768;

    /** A 16-bit little-endian WAV from the JDK's writer; sample (frame, channel) = fn. */
    static byte[] wav16(int rate, int channels, int frames, SampleFn fn) throws IOException {
        ByteBuffer raw = ByteBuffer.allocate(frames * channels * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (int f = 0; f < frames; f++) {
            for (int c = 0; c < channels; c++) {
                raw.putShort((short) fn.at(f, c));
            }
        }
        AudioFormat format = new AudioFormat(rate, 16, channels, true, false);
        return write(raw.array(), format, frames, AudioFileFormat.Type.WAVE);
    }

    static byte[] write(byte[] raw, AudioFormat format, int frames, AudioFileFormat.Type type)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AudioSystem.write(
                new AudioInputStream(new ByteArrayInputStream(raw), format, frames), type, out);
        return out.toByteArray();
    }

    interface SampleFn {
        int at(int frame, int channel);
    }

    private static Pcm ramp() throws IOException {
        // one second at 8 kHz mono; frame f holds f * 4 (so frame 8000 would be 32000)
        return WavCodec.decode(wav16(8000, 1, 8000, (f, c) -> f * 4), LIMITS, "t");
    }

    private static Pcm constant(int rate, int channels, int frames, int value) throws IOException {
        return WavCodec.decode(wav16(rate, channels, frames, (f, c) -> value), LIMITS, "t");
    }

    @Test
    void readsA16BitWav() throws IOException {
        byte[] bytes = wav16(8000, 2, 4000, (f, c) -> c == 0 ? f : -f);
        WavCodec.Header h = WavCodec.header(bytes, LIMITS, "t");
        assertEquals("audio/wav", h.mimeType());
        assertEquals(4000, h.frames());
        Pcm pcm = WavCodec.decode(bytes, LIMITS, "t");
        assertEquals(8000, pcm.sampleRate());
        assertEquals(2, pcm.channels());
        assertEquals(16, pcm.bitDepth());
        assertEquals(4000, pcm.frames());
        assertEquals(0.5, pcm.seconds());
        assertEquals(1234 * ONE_16, pcm.sample(1234, 0), 0);
        assertEquals(-1234 * ONE_16, pcm.sample(1234, 1), 0);
    }

    @Test
    void readsUnsigned8BitAnd24BitAndBigEndianAiff() throws IOException {
        byte[] raw8 = {(byte) 0, (byte) 128, (byte) 192, (byte) 255};
        Pcm p8 =
                WavCodec.decode(
                        write(
                                raw8,
                                new AudioFormat(
                                        AudioFormat.Encoding.PCM_UNSIGNED,
                                        8000,
                                        8,
                                        1,
                                        1,
                                        8000,
                                        false),
                                4,
                                AudioFileFormat.Type.WAVE),
                        LIMITS,
                        "t");
        assertEquals(8, p8.bitDepth());
        assertEquals(-1.0, p8.sample(0, 0), 0);
        assertEquals(0.0, p8.sample(1, 0), 0);
        assertEquals(0.5, p8.sample(2, 0), 0);
        assertEquals(127 / 128.0, p8.sample(3, 0), 1e-7);

        // 24-bit little endian: 0x400000 = 0.5, 0xC00000 = -0.5
        byte[] raw24 = {0, 0, 0x40, 0, 0, (byte) 0xC0};
        Pcm p24 =
                WavCodec.decode(
                        write(
                                raw24,
                                new AudioFormat(48000, 24, 1, true, false),
                                2,
                                AudioFileFormat.Type.WAVE),
                        LIMITS,
                        "t");
        assertEquals(24, p24.bitDepth());
        assertEquals(0.5, p24.sample(0, 0), 0);
        assertEquals(-0.5, p24.sample(1, 0), 0);

        // AIFF is big endian: 0x2000 = 0.25
        byte[] raw16be = {0x20, 0, (byte) 0xE0, 0};
        byte[] aiff =
                write(
                        raw16be,
                        new AudioFormat(22050, 16, 1, true, true),
                        2,
                        AudioFileFormat.Type.AIFF);
        assertEquals("audio/aiff", WavCodec.header(aiff, LIMITS, "t").mimeType());
        Pcm pa = WavCodec.decode(aiff, LIMITS, "t");
        assertEquals(0.25, pa.sample(0, 0), 0);
        assertEquals(-0.25, pa.sample(1, 0), 0);
    }

    @Test
    void writingKeepsEverySampleAtTheSameDepth() throws Exception {
        byte[] in = wav16(11025, 2, 3000, (f, c) -> (f * 37 + c * 1000) % 65536 - 32768);
        Pcm pcm = WavCodec.decode(in, LIMITS, "t");
        byte[] out = WavCodec.encode(pcm);
        Pcm again = WavCodec.decode(out, LIMITS, "t");
        assertArrayEquals(pcm.samples(), again.samples());
        assertEquals(11025, again.sampleRate());
        // the JDK reads our header the same way
        try (AudioInputStream s = AudioSystem.getAudioInputStream(new ByteArrayInputStream(out))) {
            assertEquals(3000, s.getFrameLength());
            assertEquals(16, s.getFormat().getSampleSizeInBits());
        }
        // a float past full scale is clamped, not wrapped
        Pcm loud = new Pcm(8000, 1, 16, new float[] {1.5f, -1.5f});
        Pcm clamped = WavCodec.decode(WavCodec.encode(loud), LIMITS, "t");
        assertEquals(32767 * ONE_16, clamped.sample(0, 0), 0);
        assertEquals(-1.0, clamped.sample(1, 0), 0);
    }

    @Test
    void trimCutsAtTheNearestFrames() throws IOException {
        Pcm t = AudioOps.trim(ramp(), 0.25, 0.5, "t");
        assertEquals(2000, t.frames());
        assertEquals(2000 * 4 * ONE_16, t.sample(0, 0), 0);
        assertEquals(3999 * 4 * ONE_16, t.sample(1999, 0), 0);
        Pcm toEnd = AudioOps.trim(ramp(), 0.75, Double.NaN, "t");
        assertEquals(2000, toEnd.frames());
        Pcm pastEnd = AudioOps.trim(ramp(), 0.75, 9, "t");
        assertEquals(2000, pastEnd.frames());
    }

    @Test
    void trimRefusesStartPastTheEndAndEndBeforeStart() throws IOException {
        Pcm r = ramp();
        BridgeException late =
                assertThrows(BridgeException.class, () -> AudioOps.trim(r, 1, 2, "audio.trim"));
        assertEquals("MediaError", late.name());
        assertEquals("INVALID_ARGUMENT", late.code());
        assertEquals(
                "audio.trim: start must be at least 0 and before the clip's end (1.0 s), got 1",
                late.getMessage());
        BridgeException backwards =
                assertThrows(
                        BridgeException.class, () -> AudioOps.trim(r, 0.5, 0.25, "audio.trim"));
        assertEquals("audio.trim: end must be after start (0.5), got 0.25", backwards.getMessage());
        assertThrows(BridgeException.class, () -> AudioOps.trim(r, -1, 0.5, "t"));
        assertThrows(BridgeException.class, () -> AudioOps.trim(r, Double.NaN, 0.5, "t"));
    }

    @Test
    void reverseSwapsFramesNotChannels() throws IOException {
        Pcm p = WavCodec.decode(wav16(8000, 2, 100, (f, c) -> c == 0 ? f : 1000 + f), LIMITS, "t");
        Pcm r = AudioOps.reverse(p);
        assertEquals(99 * ONE_16, r.sample(0, 0), 0);
        assertEquals(1099 * ONE_16, r.sample(0, 1), 0);
        assertEquals(0, r.sample(99, 0), 0);
        assertEquals(1000 * ONE_16, r.sample(99, 1), 0);
    }

    @Test
    void fadesAreLinearAndMirrored() throws IOException {
        Pcm p = constant(8000, 1, 8000, 16384); // 0.5 throughout
        Pcm in = AudioOps.fadeIn(p, 0.5, "t"); // 4000 frames
        assertEquals(0, in.sample(0, 0), 0);
        assertEquals(0.25, in.sample(2000, 0), 0);
        assertEquals(0.5, in.sample(4000, 0), 0);
        assertEquals(0.5, in.sample(7999, 0), 0);
        Pcm out = AudioOps.fadeOut(p, 0.5, "t");
        assertEquals(0, out.sample(7999, 0), 0);
        assertEquals(0.25, out.sample(5999, 0), 0);
        assertEquals(0.5, out.sample(3999, 0), 0);
        assertEquals(0.5 * 3999 / 4000, out.sample(4000, 0), 1e-7);
        // a fade longer than the clip covers the clip
        Pcm whole = AudioOps.fadeIn(p, 60, "t");
        assertEquals(0.25, whole.sample(4000, 0), 0);
        BridgeException zero =
                assertThrows(BridgeException.class, () -> AudioOps.fadeIn(p, 0, "audio.fadeIn"));
        assertEquals(
                "audio.fadeIn: duration must be a positive number of seconds, got 0",
                zero.getMessage());
    }

    @Test
    void normalizeScalesToThePeak() throws IOException {
        Pcm p =
                WavCodec.decode(
                        wav16(8000, 1, 3, (f, c) -> new int[] {4096, -8192, 2048}[f]), LIMITS, "t");
        Pcm n = AudioOps.normalize(p, 1.0, "t");
        assertEquals(0.5, n.sample(0, 0), 0);
        assertEquals(-1.0, n.sample(1, 0), 0);
        assertEquals(0.25, n.sample(2, 0), 0);
        Pcm half = AudioOps.normalize(p, 0.5, "t");
        assertEquals(-0.5, half.sample(1, 0), 0);
        Pcm silent = constant(8000, 1, 10, 0);
        assertEquals(0, AudioOps.normalize(silent, 1, "t").sample(5, 0), 0);
        BridgeException bad =
                assertThrows(
                        BridgeException.class, () -> AudioOps.normalize(p, 1.5, "audio.normalize"));
        assertEquals(
                "audio.normalize: peak must be more than 0 and at most 1, got 1.5",
                bad.getMessage());
    }

    @Test
    void concatConformsToTheFirstClip() throws IOException {
        Pcm mono8k = constant(8000, 1, 8000, 8192); // 1 s of 0.25
        Pcm stereo16k =
                WavCodec.decode(wav16(16000, 2, 8000, (f, c) -> c == 0 ? 16384 : 0), LIMITS, "t");
        Pcm joined = AudioOps.concat(List.of(mono8k, stereo16k), LIMITS, "t");
        assertEquals(8000, joined.sampleRate());
        assertEquals(1, joined.channels());
        assertEquals(12000, joined.frames()); // 1 s + 0.5 s
        assertEquals(0.25, joined.sample(7999, 0), 0);
        assertEquals(0.25, joined.sample(8000, 0), 0); // (0.5 + 0) / 2
        assertEquals(1.5, joined.seconds());
    }

    @Test
    void resamplingInterpolatesBetweenFrames() throws IOException {
        Pcm up = AudioOps.conform(ramp(), 16000, 2, LIMITS, "t");
        assertEquals(16000, up.frames());
        assertEquals(2, up.channels());
        assertEquals(4 * ONE_16, up.sample(2, 0), 0); // frame 1 of the input
        assertEquals(6 * ONE_16, up.sample(3, 1), 1e-9); // between frames 1 and 2
        Pcm down = AudioOps.conform(ramp(), 4000, 1, LIMITS, "t");
        assertEquals(4000, down.frames());
        assertEquals(8 * ONE_16, down.sample(1, 0), 0);
    }

    @Test
    void mixSumsWithGainsAndClips() throws IOException {
        Pcm quarter = constant(8000, 1, 8000, 8192);
        Pcm half = constant(8000, 1, 4000, 16384);
        Pcm m = AudioOps.mix(List.of(quarter, half), new double[] {1, 1}, LIMITS, "t");
        assertEquals(8000, m.frames()); // as long as the longest
        assertEquals(0.75, m.sample(0, 0), 0);
        assertEquals(0.25, m.sample(4000, 0), 0);
        Pcm loud = AudioOps.mix(List.of(half, half, half), new double[] {1, 1, 1}, LIMITS, "t");
        assertEquals(1.0, loud.sample(0, 0), 0);
        Pcm quiet = AudioOps.mix(List.of(quarter, half), new double[] {0.5, 0}, LIMITS, "t");
        assertEquals(0.125, quiet.sample(0, 0), 0);
    }

    @Test
    void repeatAndItsSampleCap() throws IOException {
        Pcm r = AudioOps.repeat(ramp(), 3, LIMITS, "t");
        assertEquals(24000, r.frames());
        assertEquals(5 * 4 * ONE_16, r.sample(16005, 0), 0);
        AudioLimits small = AudioLimits.builder().withMaxSamples(20000).build();
        BridgeException big =
                assertThrows(
                        BridgeException.class,
                        () -> AudioOps.repeat(ramp(), 3, small, "audio.repeat"));
        assertEquals("TOO_LARGE", big.code());
        assertEquals(
                "audio.repeat: the audio holds 24000 samples (frames x channels); the limit is"
                        + " 20000",
                big.getMessage());
        assertThrows(BridgeException.class, () -> AudioOps.repeat(ramp(), 0, LIMITS, "t"));
        BridgeException joined =
                assertThrows(
                        BridgeException.class,
                        () ->
                                AudioOps.concat(
                                        List.of(ramp(), ramp(), ramp()), small, "audio.concat"));
        assertEquals("TOO_LARGE", joined.code());
    }

    @Test
    void inputCapsAreCheckedBeforeDecoding() throws IOException {
        byte[] oneSecond = wav16(8000, 1, 8000, (f, c) -> 0);
        AudioLimits fewBytes = AudioLimits.builder().withMaxInputBytes(1000).build();
        BridgeException bytes =
                assertThrows(
                        BridgeException.class,
                        () -> WavCodec.decode(oneSecond, fewBytes, "audio.info"));
        assertEquals("TOO_LARGE", bytes.code());
        assertEquals(
                "audio.info: the audio input is " + oneSecond.length + " bytes; the limit is 1000",
                bytes.getMessage());
        AudioLimits fewSamples = AudioLimits.builder().withMaxSamples(7999).build();
        BridgeException samples =
                assertThrows(
                        BridgeException.class, () -> WavCodec.decode(oneSecond, fewSamples, "t"));
        assertTrue(samples.getMessage().contains("8000 samples"), samples.getMessage());

        // a 60-byte file whose header declares 2 GB of 8-bit samples is refused from its header
        byte[] bomb = new byte[60];
        ByteBuffer b = ByteBuffer.wrap(bomb).order(ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(0x7fff0000);
        b.put("WAVEfmt ".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(16);
        b.putShort((short) 1).putShort((short) 1).putInt(8000).putInt(8000);
        b.putShort((short) 1).putShort((short) 8);
        b.put("data".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putInt(0x7ffe0000);
        BridgeException declared =
                assertThrows(BridgeException.class, () -> WavCodec.decode(bomb, LIMITS, "t"));
        assertEquals("TOO_LARGE", declared.code());
    }

    @Test
    void notAudioIsUnsupported() {
        BridgeException e =
                assertThrows(
                        BridgeException.class,
                        () ->
                                WavCodec.decode(
                                        "ID3 not really an mp3"
                                                .getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        LIMITS,
                                        "audio.info"));
        assertEquals("MediaError", e.name());
        assertEquals("UNSUPPORTED", e.code());
        assertTrue(
                e.getMessage().startsWith("audio.info: not a WAV, AIFF or AU file"),
                e.getMessage());
    }

    @Test
    void limitsAreCheckedWhereSet() {
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                AudioLimits.builder()
                                        .withMaxSamples(AudioLimits.SAMPLES_CEILING + 1));
        assertEquals("maxSamples (134217729) must be between 1 and 134217728", e.getMessage());
        assertThrows(InvalidRequestException.class, () -> AudioLimits.builder().withMaxClips(0));
    }
}
