package dev.sandjar.bridges.audio;

/**
 * A decoded clip: interleaved samples as floats in [-1, 1) (frame 0's channels, then frame 1's,
 * ...), its sample rate and channel count, and the integer bit depth it is written back with (8,
 * 16, 24 or 32). The array is owned by this object and never changed after construction; every
 * operation makes a new one.
 */
final class Pcm {
    private final int sampleRate;
    private final int channels;
    private final int bitDepth;
    private final float[] samples;

    Pcm(int sampleRate, int channels, int bitDepth, float[] samples) {
        if (sampleRate < 1 || channels < 1 || samples.length % channels != 0) {
            throw new IllegalArgumentException(
                    "bad clip: " + sampleRate + " Hz, " + channels + " channels");
        }
        this.sampleRate = sampleRate;
        this.channels = channels;
        this.bitDepth = bitDepth;
        this.samples = samples;
    }

    int sampleRate() {
        return sampleRate;
    }

    int channels() {
        return channels;
    }

    int bitDepth() {
        return bitDepth;
    }

    int frames() {
        return samples.length / channels;
    }

    double seconds() {
        return (double) frames() / sampleRate;
    }

    /** The sample of {@code channel} at {@code frame}. */
    float sample(int frame, int channel) {
        return samples[frame * channels + channel];
    }

    /** The backing array; callers read it and never write it. */
    float[] samples() {
        return samples;
    }

    /** A clip of the same format over new samples. */
    Pcm with(float[] newSamples) {
        return new Pcm(sampleRate, channels, bitDepth, newSamples);
    }
}
