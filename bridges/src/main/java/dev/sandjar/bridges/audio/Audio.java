package dev.sandjar.bridges.audio;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaException;
import dev.sandjar.bridges.media.MediaRun;
import dev.sandjar.bridges.media.MediaType;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The guest's {@code audio} object: {@code request.bridge(Audio.create(media).bridge())}, on the
 * same {@link Media} as the run's other media bridges so their handles pass between them. Does no
 * I/O of its own (refs are read by {@code media}'s resolvers), so it is on by default. Immutable
 * and thread-safe.
 *
 * <p>Guest surface (all async): {@code info(audio)} ({@code {type, mimeType, container, sampleRate,
 * channels, bitDepth, frames, duration, size}}), {@code bytes(audio)}, and the transforms, which
 * each return an audio handle holding a WAV: {@code normalize(a, {peak})}, {@code trim(a, {start,
 * end})}, {@code concat([a, b, ...])}, {@code mix([a, b, ...], {gains})}, {@code reverse(a)},
 * {@code fadeIn(a, {duration})}, {@code fadeOut(a, {duration})}, {@code repeat(a, {times})}. An
 * input is a ref, a handle or bytes of a WAV, AIFF or AU file ({@link WavCodec}); times are
 * seconds. Decoding, the transform and encoding run as the run's media work ({@link
 * MediaRun#work}): off the engine thread, one at a time per run, their CPU counted.
 */
public final class Audio {
    // Wrapped once: the template cache keys on the guest source, so every run must hand it the same
    // String (its hash kept, equal by identity), not a new concatenation of a few KiB.
    private static final String GUEST =
            Media.guestSource(GuestScripts.load(Audio.class, "audio.js"));

    private final Media media;
    private final AudioLimits limits;
    private final Bridge bridge;

    private Audio(Media media, AudioLimits limits) {
        this.media = Objects.requireNonNull(media, "media");
        this.limits = Objects.requireNonNull(limits, "limits");
        Param input = Param.any("audio");
        Param clips = Param.array("clips").maxLength(limits.maxClips());
        this.bridge =
                Bridge.builder("audio")
                        .guest(GUEST)
                        .operation(
                                Operation.builder("info").param(input).handler(this::info).build())
                        .operation(
                                Operation.builder("bytes")
                                        .param(input)
                                        .handler(
                                                c ->
                                                        media.resolve(c, c.arg(0), MediaType.AUDIO)
                                                                .thenApply(MediaData::bytes))
                                        .build())
                        .operation(
                                one(
                                        "normalize",
                                        List.of(Param.any("peak").optional()),
                                        (c, p) ->
                                                AudioOps.normalize(
                                                        p, number(c, 1, "peak", 1.0), c.where())))
                        .operation(
                                one(
                                        "trim",
                                        List.of(
                                                Param.any("start").optional(),
                                                Param.any("end").optional()),
                                        (c, p) ->
                                                AudioOps.trim(
                                                        p,
                                                        number(c, 1, "start", 0),
                                                        number(c, 2, "end", Double.NaN),
                                                        c.where())))
                        .operation(one("reverse", List.of(), (c, p) -> AudioOps.reverse(p)))
                        .operation(
                                one(
                                        "fadeIn",
                                        List.of(Param.any("duration").optional()),
                                        (c, p) ->
                                                AudioOps.fadeIn(
                                                        p, required(c, 1, "duration"), c.where())))
                        .operation(
                                one(
                                        "fadeOut",
                                        List.of(Param.any("duration").optional()),
                                        (c, p) ->
                                                AudioOps.fadeOut(
                                                        p, required(c, 1, "duration"), c.where())))
                        .operation(
                                one(
                                        "repeat",
                                        List.of(Param.any("times").optional()),
                                        (c, p) -> AudioOps.repeat(p, times(c), limits, c.where())))
                        .operation(
                                many(
                                        "concat",
                                        clips,
                                        List.of(),
                                        (c, ps) -> AudioOps.concat(ps, limits, c.where())))
                        .operation(
                                many(
                                        "mix",
                                        clips,
                                        List.of(Param.any("gains").optional()),
                                        (c, ps) ->
                                                AudioOps.mix(
                                                        ps,
                                                        gains(c, ps.size()),
                                                        limits,
                                                        c.where())))
                        .build();
    }

    /** Audio on {@code media}'s handles and refs, with the default {@link AudioLimits}. */
    public static Audio create(Media media) {
        return new Audio(media, AudioLimits.defaults());
    }

    public static Audio create(Media media, AudioLimits limits) {
        return new Audio(media, limits);
    }

    public Bridge bridge() {
        return bridge;
    }

    private interface One {
        Pcm apply(OperationCall call, Pcm pcm);
    }

    private interface Many {
        Pcm apply(OperationCall call, List<Pcm> pcms);
    }

    private Operation one(String name, List<Param> params, One op) {
        Operation.Builder b = Operation.builder(name).param(Param.any("audio"));
        params.forEach(b::param);
        return b.handler(c -> transform(c, List.of(c.arg(0)), ps -> op.apply(c, ps.get(0))))
                .build();
    }

    private Operation many(String name, Param clips, List<Param> params, Many op) {
        Operation.Builder b = Operation.builder(name).param(clips);
        params.forEach(b::param);
        return b.handler(c -> transform(c, c.array(0), ps -> op.apply(c, ps))).build();
    }

    /**
     * Resolves the inputs, then as the run's media work decodes them, applies {@code op} and
     * encodes the result, and stores it as a handle of the run.
     */
    private CompletableFuture<Object> transform(
            OperationCall call, List<Object> inputs, Function<List<Pcm>, Pcm> op) {
        String where = call.where();
        if (inputs.isEmpty()) {
            throw AudioOps.range(where + ": needs at least one clip");
        }
        MediaRun run = media.run(call.session());
        return resolveAll(call, inputs)
                .thenCompose(
                        data ->
                                run.work(
                                        where,
                                        () -> {
                                            long total = 0;
                                            for (MediaData d : data) {
                                                WavCodec.Header h =
                                                        WavCodec.header(d.bytes(), limits, where);
                                                total += h.frames() * h.format().getChannels();
                                            }
                                            // the clips of one call are decoded together
                                            WavCodec.checkSamples(total, limits, where);
                                            List<Pcm> pcms = new ArrayList<>(data.size());
                                            for (MediaData d : data) {
                                                pcms.add(WavCodec.decode(d.bytes(), limits, where));
                                            }
                                            return WavCodec.encode(op.apply(pcms));
                                        }))
                .thenApply(
                        wav ->
                                run.store(
                                        where,
                                        new MediaData(MediaType.AUDIO, WavCodec.MIME_TYPE, wav)));
    }

    private CompletableFuture<List<MediaData>> resolveAll(OperationCall call, List<Object> inputs) {
        List<CompletableFuture<MediaData>> each = new ArrayList<>(inputs.size());
        for (Object input : inputs) {
            each.add(media.resolve(call, input, MediaType.AUDIO));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
    }

    private Object info(OperationCall call) {
        String where = call.where();
        MediaRun run = media.run(call.session());
        return media.resolve(call, call.arg(0), MediaType.AUDIO)
                .thenCompose(
                        d ->
                                run.work(
                                        where,
                                        () -> {
                                            WavCodec.Header h =
                                                    WavCodec.header(d.bytes(), limits, where);
                                            Map<String, Object> out = new LinkedHashMap<>();
                                            out.put("type", "audio");
                                            out.put("mimeType", h.mimeType());
                                            out.put("container", h.container());
                                            int rate = Math.round(h.format().getSampleRate());
                                            out.put("sampleRate", (long) rate);
                                            out.put("channels", (long) h.format().getChannels());
                                            out.put(
                                                    "bitDepth",
                                                    (long) h.format().getSampleSizeInBits());
                                            out.put(
                                                    "encoding",
                                                    h.format().getEncoding().toString());
                                            out.put("frames", h.frames());
                                            out.put("duration", (double) h.frames() / rate);
                                            out.put("size", (long) d.size());
                                            return out;
                                        }));
    }

    private static double number(OperationCall c, int i, String name, double fallback) {
        Object v = c.arg(i);
        return v == null ? fallback : Args.number(v, c.where(), name);
    }

    private static double required(OperationCall c, int i, String name) {
        if (c.arg(i) == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_ARGUMENT, c.where() + ": " + name + " is required");
        }
        return Args.number(c.arg(i), c.where(), name);
    }

    private static long times(OperationCall c) {
        double t = required(c, 1, "times");
        if (t != Math.rint(t) || t < 1 || t > Integer.MAX_VALUE) {
            throw AudioOps.range(
                    c.where() + ": times must be a whole number from 1, got " + Args.show(t));
        }
        return (long) t;
    }

    private static double[] gains(OperationCall c, int clips) {
        double[] out = new double[clips];
        java.util.Arrays.fill(out, 1.0);
        Object v = c.arg(1);
        if (v == null) {
            return out;
        }
        if (!(v instanceof List<?> list) || list.size() != clips) {
            throw AudioOps.range(
                    c.where() + ": gains must be an array of " + clips + " numbers, one per clip");
        }
        for (int i = 0; i < clips; i++) {
            double g = Args.number(list.get(i), c.where(), "gains[" + i + "]");
            if (!(g >= 0 && g <= 16)) {
                throw AudioOps.range(
                        c.where() + ": gains[" + i + "] must be from 0 to 16, got " + Args.show(g));
            }
            out[i] = g;
        }
        return out;
    }
}
