package dev.sandjar.bridges.audio;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.media.MediaException;
import java.util.ArrayList;
import java.util.List;

/**
 * The audio transforms on decoded clips. Times are seconds and become frames by rounding to the
 * nearest frame; every result is checked against {@link AudioLimits#maxSamples()} before its array
 * is made. Clips that meet in {@link #concat} or {@link #mix} are first brought to the first clip's
 * sample rate and channel count by {@link #conform}.
 */
final class AudioOps {
    private AudioOps() {}

    /** Scales the clip so its largest absolute sample is {@code peak} (0 &lt; peak &le; 1). */
    static Pcm normalize(Pcm pcm, double peak, String where) {
        if (!(peak > 0 && peak <= 1)) {
            throw range(where + ": peak must be more than 0 and at most 1, got " + Args.show(peak));
        }
        float max = 0;
        for (float s : pcm.samples()) {
            max = Math.max(max, Math.abs(s));
        }
        if (max == 0) {
            return pcm; // silence stays silence
        }
        double gain = peak / max;
        float[] s = pcm.samples();
        float[] out = new float[s.length];
        for (int i = 0; i < s.length; i++) {
            out[i] = (float) (s[i] * gain);
        }
        return pcm.with(out);
    }

    /**
     * The part from {@code start} to {@code end} seconds; {@code end} past the clip's end (or NaN,
     * meaning absent) is the clip's end.
     */
    static Pcm trim(Pcm pcm, double start, double end, String where) {
        double duration = pcm.seconds();
        if (!(start >= 0) || !(start < duration) || Double.isInfinite(start)) {
            throw range(
                    where
                            + ": start must be at least 0 and before the clip's end ("
                            + duration
                            + " s), got "
                            + Args.show(start));
        }
        if (!Double.isNaN(end) && !(end > start)) {
            throw range(
                    where
                            + ": end must be after start ("
                            + Args.show(start)
                            + "), got "
                            + Args.show(end));
        }
        int from = frame(pcm, start);
        int to = Double.isNaN(end) ? pcm.frames() : Math.min(pcm.frames(), frame(pcm, end));
        return slice(pcm, from, Math.max(to, from));
    }

    static Pcm reverse(Pcm pcm) {
        int ch = pcm.channels();
        int frames = pcm.frames();
        float[] s = pcm.samples();
        float[] out = new float[s.length];
        for (int f = 0; f < frames; f++) {
            System.arraycopy(s, (frames - 1 - f) * ch, out, f * ch, ch);
        }
        return pcm.with(out);
    }

    /**
     * A linear fade from silence over the first {@code seconds} (the whole clip if longer): frame
     * {@code i} of the {@code n} faded ones is multiplied by {@code i / n}.
     */
    static Pcm fadeIn(Pcm pcm, double seconds, String where) {
        int n = fadeFrames(pcm, seconds, where);
        float[] out = pcm.samples().clone();
        int ch = pcm.channels();
        for (int f = 0; f < n; f++) {
            float gain = (float) f / n;
            for (int c = 0; c < ch; c++) {
                out[f * ch + c] *= gain;
            }
        }
        return pcm.with(out);
    }

    /**
     * A linear fade to silence over the last {@code seconds}: the mirror of {@link #fadeIn}, so the
     * last frame is multiplied by 0 and the first faded one by {@code (n - 1) / n}.
     */
    static Pcm fadeOut(Pcm pcm, double seconds, String where) {
        int n = fadeFrames(pcm, seconds, where);
        float[] out = pcm.samples().clone();
        int ch = pcm.channels();
        int frames = pcm.frames();
        for (int k = 0; k < n; k++) {
            int f = frames - 1 - k;
            float gain = (float) k / n;
            for (int c = 0; c < ch; c++) {
                out[f * ch + c] *= gain;
            }
        }
        return pcm.with(out);
    }

    /** The clip {@code times} times in a row (1 &le; times). */
    static Pcm repeat(Pcm pcm, long times, AudioLimits limits, String where) {
        if (times < 1) {
            throw range(where + ": times must be at least 1, got " + times);
        }
        long total = pcm.samples().length * times;
        WavCodec.checkSamples(total, limits, where);
        float[] s = pcm.samples();
        float[] out = new float[(int) total];
        for (int k = 0; k < times; k++) {
            System.arraycopy(s, 0, out, k * s.length, s.length);
        }
        return pcm.with(out);
    }

    /** The clips one after another, in the first clip's rate, channels and bit depth. */
    static Pcm concat(List<Pcm> clips, AudioLimits limits, String where) {
        List<Pcm> same = conformAll(clips, limits, where);
        long total = 0;
        for (Pcm p : same) {
            total += p.samples().length;
        }
        WavCodec.checkSamples(total, limits, where);
        float[] out = new float[(int) total];
        int at = 0;
        for (Pcm p : same) {
            System.arraycopy(p.samples(), 0, out, at, p.samples().length);
            at += p.samples().length;
        }
        return same.get(0).with(out);
    }

    /**
     * The clips played together from their starts, each multiplied by its gain and the sum clipped
     * to [-1, 1]; as long as the longest, in the first clip's format.
     */
    static Pcm mix(List<Pcm> clips, double[] gains, AudioLimits limits, String where) {
        List<Pcm> same = conformAll(clips, limits, where);
        int longest = 0;
        for (Pcm p : same) {
            longest = Math.max(longest, p.samples().length);
        }
        float[] out = new float[longest];
        for (int k = 0; k < same.size(); k++) {
            float[] s = same.get(k).samples();
            double g = gains[k];
            for (int i = 0; i < s.length; i++) {
                out[i] += (float) (s[i] * g);
            }
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.max(-1f, Math.min(1f, out[i]));
        }
        return same.get(0).with(out);
    }

    /**
     * The clip at {@code sampleRate} and {@code channels}. Rates change by linear interpolation
     * between neighbouring frames (no filtering: fine for speech and effects, audible aliasing when
     * a high-pitched clip goes down in rate). Channels: many to one averages them, one to many
     * copies it, otherwise output channel {@code c} is input channel {@code c} (or {@code c mod n}
     * past the input's last).
     */
    static Pcm conform(Pcm pcm, int sampleRate, int channels, AudioLimits limits, String where) {
        Pcm p = pcm;
        if (p.channels() != channels) {
            WavCodec.checkSamples((long) p.frames() * channels, limits, where);
            p = remix(p, channels);
        }
        if (p.sampleRate() != sampleRate) {
            long frames = Math.round((double) p.frames() * sampleRate / p.sampleRate());
            WavCodec.checkSamples(frames * channels, limits, where);
            p = resample(p, sampleRate, (int) frames);
        }
        return p;
    }

    private static List<Pcm> conformAll(List<Pcm> clips, AudioLimits limits, String where) {
        if (clips.isEmpty()) {
            throw range(where + ": needs at least one clip");
        }
        Pcm first = clips.get(0);
        List<Pcm> out = new ArrayList<>(clips.size());
        for (Pcm p : clips) {
            Pcm c = conform(p, first.sampleRate(), first.channels(), limits, where);
            out.add(new Pcm(c.sampleRate(), c.channels(), first.bitDepth(), c.samples()));
        }
        return out;
    }

    private static Pcm remix(Pcm p, int channels) {
        int in = p.channels();
        int frames = p.frames();
        float[] out = new float[frames * channels];
        for (int f = 0; f < frames; f++) {
            if (channels == 1) {
                double sum = 0;
                for (int c = 0; c < in; c++) {
                    sum += p.sample(f, c);
                }
                out[f] = (float) (sum / in);
            } else {
                for (int c = 0; c < channels; c++) {
                    out[f * channels + c] = p.sample(f, in == 1 ? 0 : c % in);
                }
            }
        }
        return new Pcm(p.sampleRate(), channels, p.bitDepth(), out);
    }

    private static Pcm resample(Pcm p, int rate, int frames) {
        int ch = p.channels();
        int last = p.frames() - 1;
        float[] out = new float[frames * ch];
        double step = (double) p.sampleRate() / rate;
        for (int f = 0; f < frames; f++) {
            double x = f * step;
            int i0 = Math.min((int) x, last);
            int i1 = Math.min(i0 + 1, last);
            double t = x - i0;
            for (int c = 0; c < ch; c++) {
                out[f * ch + c] = (float) (p.sample(i0, c) * (1 - t) + p.sample(i1, c) * t);
            }
        }
        return new Pcm(rate, ch, p.bitDepth(), out);
    }

    private static int fadeFrames(Pcm pcm, double seconds, String where) {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw range(
                    where
                            + ": duration must be a positive number of seconds, got "
                            + Args.show(seconds));
        }
        return Math.min(pcm.frames(), frame(pcm, seconds));
    }

    private static int frame(Pcm pcm, double seconds) {
        return (int) Math.min(Integer.MAX_VALUE, Math.round(seconds * pcm.sampleRate()));
    }

    private static Pcm slice(Pcm pcm, int from, int to) {
        int ch = pcm.channels();
        float[] out = new float[(to - from) * ch];
        System.arraycopy(pcm.samples(), from * ch, out, 0, out.length);
        return pcm.with(out);
    }

    static MediaException range(String message) {
        return new MediaException(MediaException.Code.INVALID_ARGUMENT, message);
    }
}
