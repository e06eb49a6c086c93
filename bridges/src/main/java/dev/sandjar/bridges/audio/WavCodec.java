package dev.sandjar.bridges.audio;

import dev.sandjar.bridges.media.MediaException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import javax.sound.sampled.AudioFileFormat;
import javax.sound.sampled.AudioFormat;
import javax.sound.sampled.AudioInputStream;
import javax.sound.sampled.AudioSystem;
import javax.sound.sampled.UnsupportedAudioFileException;

/**
 * Reads WAV, AIFF and AU (the containers {@code javax.sound.sampled} reads: integer PCM of 8 to 32
 * bits, 32-bit float, &mu;-law and A-law) into a {@link Pcm}, and writes a {@link Pcm} as a WAV of
 * integer PCM. No pure-Java decoder of compressed formats (MP3, Ogg, FLAC) is a dependency here:
 * convert those with {@code video.extractAudio} when the host has ffmpeg.
 *
 * <p>Integer samples map to floats as {@code s / 2^(bits-1)} and back as {@code round(f *
 * 2^(bits-1))} clamped to the integer range, so a clip read and written at the same depth keeps
 * every sample exactly.
 */
final class WavCodec {
    static final String MIME_TYPE = "audio/wav";
    private static final int MAX_CHANNELS = 32;

    private WavCodec() {}

    /** What the container says, without decoding the samples. */
    record Header(String mimeType, String container, AudioFormat format, long frames) {}

    static Header header(byte[] bytes, AudioLimits limits, String where) {
        checkInput(bytes, limits, where);
        try (AudioInputStream in =
                AudioSystem.getAudioInputStream(new ByteArrayInputStream(bytes))) {
            AudioFileFormat file = AudioSystem.getAudioFileFormat(new ByteArrayInputStream(bytes));
            AudioFormat f = in.getFormat();
            if (f.getChannels() < 1 || f.getChannels() > MAX_CHANNELS) {
                throw unsupported(
                        where
                                + ": "
                                + f.getChannels()
                                + " channels; from 1 to "
                                + MAX_CHANNELS
                                + " are read");
            }
            long frames = in.getFrameLength();
            if (frames == AudioSystem.NOT_SPECIFIED && f.getFrameSize() > 0) {
                frames = bytes.length / f.getFrameSize();
            }
            AudioFileFormat.Type type = file.getType();
            return new Header(mimeOf(type), type.toString().toLowerCase(Locale.ROOT), f, frames);
        } catch (UnsupportedAudioFileException e) {
            throw unsupported(
                    where
                            + ": not a WAV, AIFF or AU file this host can read"
                            + " (compressed formats such as MP3 are not read)");
        } catch (IOException e) {
            throw unsupported(where + ": the audio file is damaged: " + e.getMessage());
        }
    }

    static Pcm decode(byte[] bytes, AudioLimits limits, String where) {
        Header header = header(bytes, limits, where);
        AudioFormat f = header.format();
        checkSamples(header.frames() * f.getChannels(), limits, where);
        try (AudioInputStream raw =
                AudioSystem.getAudioInputStream(new ByteArrayInputStream(bytes))) {
            AudioInputStream in = raw;
            AudioFormat.Encoding enc = f.getEncoding();
            boolean pcm =
                    enc.equals(AudioFormat.Encoding.PCM_SIGNED)
                            || enc.equals(AudioFormat.Encoding.PCM_UNSIGNED)
                            || enc.equals(AudioFormat.Encoding.PCM_FLOAT);
            if (!pcm) {
                AudioFormat target =
                        new AudioFormat(f.getSampleRate(), 16, f.getChannels(), true, false);
                if (!AudioSystem.isConversionSupported(target, f)) {
                    throw unsupported(where + ": " + enc + " audio cannot be decoded here");
                }
                in = AudioSystem.getAudioInputStream(target, raw);
                f = target;
            }
            int bits = f.getSampleSizeInBits();
            boolean isFloat = f.getEncoding().equals(AudioFormat.Encoding.PCM_FLOAT);
            if (isFloat ? bits != 32 : (bits < 8 || bits > 32 || bits % 8 != 0)) {
                throw unsupported(where + ": " + bits + "-bit " + f.getEncoding() + " is not read");
            }
            float rate = f.getSampleRate();
            if (!(rate >= 1 && rate <= 768_000) || rate != Math.rint(rate)) {
                throw unsupported(where + ": a sample rate of " + rate + " Hz is not read");
            }
            byte[] data = readAll(in, header.frames() * f.getFrameSize());
            int channels = f.getChannels();
            int width = bits / 8;
            int count = data.length / width / channels * channels;
            float[] samples = new float[count];
            boolean unsigned = f.getEncoding().equals(AudioFormat.Encoding.PCM_UNSIGNED);
            boolean big = f.isBigEndian() && width > 1;
            double scale = Math.scalb(1.0, bits - 1);
            for (int i = 0; i < count; i++) {
                long v = 0;
                int at = i * width;
                for (int k = 0; k < width; k++) {
                    int b = data[at + (big ? k : width - 1 - k)] & 0xff;
                    v = (v << 8) | b;
                }
                if (isFloat) {
                    samples[i] = Float.intBitsToFloat((int) v);
                } else if (unsigned) {
                    samples[i] = (float) ((v - (long) scale) / scale);
                } else {
                    long signed = (v << (64 - bits)) >> (64 - bits);
                    samples[i] = (float) (signed / scale);
                }
            }
            return new Pcm((int) rate, channels, isFloat ? 16 : bits, samples);
        } catch (UnsupportedAudioFileException | IOException e) {
            throw unsupported(where + ": the audio file is damaged: " + e.getMessage());
        }
    }

    /**
     * {@code pcm} as a WAV file of integer PCM at its bit depth (8-bit is unsigned, as WAV has it).
     */
    static byte[] encode(Pcm pcm) {
        int bits = pcm.bitDepth();
        int width = bits / 8;
        float[] s = pcm.samples();
        long dataBytes = (long) s.length * width;
        if (dataBytes > Integer.MAX_VALUE - 64) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE, "audio: the result is too large for a WAV file");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) dataBytes + 44);
        out.writeBytes("RIFF".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        le(out, 36 + dataBytes, 4);
        out.writeBytes("WAVEfmt ".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        le(out, 16, 4);
        le(out, 1, 2); // integer PCM
        le(out, pcm.channels(), 2);
        le(out, pcm.sampleRate(), 4);
        le(out, (long) pcm.sampleRate() * pcm.channels() * width, 4);
        le(out, pcm.channels() * width, 2);
        le(out, bits, 2);
        out.writeBytes("data".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        le(out, dataBytes, 4);
        long max = 1L << (bits - 1);
        byte[] frame = new byte[width];
        for (float f : s) {
            long q = Math.round(f * (double) max);
            q = Math.max(-max, Math.min(max - 1, q));
            if (bits == 8) {
                q += 128;
            }
            for (int k = 0; k < width; k++) {
                frame[k] = (byte) (q >> (8 * k));
            }
            out.write(frame, 0, width);
        }
        return out.toByteArray();
    }

    static void checkSamples(long samples, AudioLimits limits, String where) {
        if (samples > limits.maxSamples()) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    where
                            + ": the audio holds "
                            + samples
                            + " samples (frames x channels); the limit is "
                            + limits.maxSamples());
        }
    }

    private static void checkInput(byte[] bytes, AudioLimits limits, String where) {
        if (bytes.length > limits.maxInputBytes()) {
            throw new MediaException(
                    MediaException.Code.TOO_LARGE,
                    where
                            + ": the audio input is "
                            + bytes.length
                            + " bytes; the limit is "
                            + limits.maxInputBytes());
        }
    }

    private static byte[] readAll(InputStream in, long expected) throws IOException {
        ByteArrayOutputStream out =
                new ByteArrayOutputStream((int) Math.max(0, Math.min(expected, 1 << 24)));
        in.transferTo(out);
        return out.toByteArray();
    }

    private static void le(ByteArrayOutputStream out, long v, int width) {
        for (int k = 0; k < width; k++) {
            out.write((int) (v >> (8 * k)) & 0xff);
        }
    }

    private static String mimeOf(AudioFileFormat.Type type) {
        if (type.equals(AudioFileFormat.Type.WAVE)) {
            return "audio/wav";
        }
        if (type.equals(AudioFileFormat.Type.AIFF) || type.equals(AudioFileFormat.Type.AIFC)) {
            return "audio/aiff";
        }
        if (type.equals(AudioFileFormat.Type.AU)) {
            return "audio/basic";
        }
        return "application/octet-stream";
    }

    private static MediaException unsupported(String message) {
        return new MediaException(MediaException.Code.UNSUPPORTED, message);
    }
}
