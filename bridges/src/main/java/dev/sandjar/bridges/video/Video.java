package dev.sandjar.bridges.video;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaData;
import dev.sandjar.bridges.media.MediaRun;
import dev.sandjar.bridges.media.MediaType;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The guest's {@code video} object, behind the host's ffmpeg: {@code
 * request.bridge(Video.create(media, VideoConfig.defaults()).bridge())}. It runs a host binary, so
 * it is a grant ({@code --video} on the command line), never a default. One {@code Video} bounds
 * the ffmpeg processes of every run it serves ({@link VideoConfig#maxProcesses()}). When the host
 * has no ffmpeg every call fails {@code VideoError} {@code UNAVAILABLE}.
 *
 * <p>Guest surface (all async): {@code info(v)}, {@code bytes(v)}, {@code trim(v, {start, end})},
 * {@code resize(v, {width, height})}, {@code rotate(v, {degrees})}, {@code addAudio(v, audio,
 * {keepOriginalAudio})}, {@code extractAudio(v, {format})} and {@code extractFrame(v, {time,
 * format})}. Inputs are refs, handles or bytes, read by {@code media}'s resolvers (so a workspace
 * path is read through the workspace's containment); videos come back as MP4 video handles,
 * extracted sound as an audio handle and a frame as an image handle. See {@link VideoOps} for what
 * each runs and {@link Ffmpeg} for how the process is confined.
 */
public final class Video {
    // Wrapped once: the template cache keys on the guest source, so every run must hand it the same
    // String (its hash kept, equal by identity), not a new concatenation of a few KiB.
    private static final String GUEST =
            Media.guestSource(GuestScripts.load(Video.class, "video.js"));

    private final Media media;
    private final VideoOps ops;
    private final Bridge bridge;

    private Video(Media media, VideoConfig config) {
        this.media = Objects.requireNonNull(media, "media");
        this.ops = new VideoOps(new Ffmpeg(Objects.requireNonNull(config, "config")));
        Param input = Param.any("video");
        this.bridge =
                Bridge.builder("video")
                        .guest(GUEST)
                        .operation(
                                Operation.builder("info")
                                        .param(input)
                                        .handler(
                                                c ->
                                                        one(
                                                                c,
                                                                null,
                                                                (d, live) ->
                                                                        ops.info(
                                                                                d.bytes(), live,
                                                                                c.where())))
                                        .build())
                        .operation(
                                Operation.builder("bytes")
                                        .param(input)
                                        .handler(
                                                c ->
                                                        media.resolve(c, c.arg(0), MediaType.VIDEO)
                                                                .thenApply(MediaData::bytes))
                                        .build())
                        .operation(
                                transform(
                                        "trim",
                                        List.of(
                                                Param.any("start").optional(),
                                                Param.any("end").optional()),
                                        (c, d, live) ->
                                                ops.trim(
                                                        d.bytes(),
                                                        number(c, 1, "start", 0),
                                                        number(c, 2, "end", Double.NaN),
                                                        live,
                                                        c.where())))
                        .operation(
                                transform(
                                        "resize",
                                        List.of(
                                                Param.any("width").optional(),
                                                Param.any("height").optional()),
                                        (c, d, live) ->
                                                ops.resize(
                                                        d.bytes(),
                                                        whole(c, 1, "width", 0),
                                                        whole(c, 2, "height", 0),
                                                        live,
                                                        c.where())))
                        .operation(
                                transform(
                                        "rotate",
                                        List.of(Param.any("degrees").optional()),
                                        (c, d, live) ->
                                                ops.rotate(
                                                        d.bytes(),
                                                        whole(c, 1, "degrees", 90),
                                                        live,
                                                        c.where())))
                        .operation(
                                transform(
                                        "extractAudio",
                                        List.of(Param.string("format").maxLength(8).optional()),
                                        (c, d, live) ->
                                                ops.extractAudio(
                                                        d.bytes(),
                                                        c.arg(1) == null ? "wav" : c.string(1),
                                                        live,
                                                        c.where())))
                        .operation(
                                transform(
                                        "extractFrame",
                                        List.of(
                                                Param.any("time").optional(),
                                                Param.string("format").maxLength(8).optional()),
                                        (c, d, live) ->
                                                ops.extractFrame(
                                                        d.bytes(),
                                                        number(c, 1, "time", 0),
                                                        c.arg(2) == null ? "png" : c.string(2),
                                                        live,
                                                        c.where())))
                        .operation(
                                Operation.builder("addAudio")
                                        .param(input)
                                        .param(Param.any("audio"))
                                        .param(Param.bool("keepOriginalAudio"))
                                        .handler(this::addAudio)
                                        .build())
                        .build();
    }

    /** Video on {@code media}'s handles and refs, running the binaries {@code config} names. */
    public static Video create(Media media, VideoConfig config) {
        return new Video(media, config);
    }

    public Bridge bridge() {
        return bridge;
    }

    private interface Step<T> {
        T apply(MediaData input, HostCall cancelled);
    }

    private interface Transform {
        VideoOps.Encoded apply(OperationCall call, MediaData input, HostCall cancelled);
    }

    private Operation transform(String name, List<Param> params, Transform op) {
        Operation.Builder b = Operation.builder(name).param(Param.any("video"));
        params.forEach(b::param);
        return b.handler(
                        c -> {
                            MediaRun run = media.run(c.session());
                            return one(c, MediaType.VIDEO, (d, live) -> op.apply(c, d, live))
                                    .thenApply(e -> store(run, c.where(), e));
                        })
                .build();
    }

    /** Resolves argument 0, then runs {@code step} as the run's media work. */
    private <T> CompletableFuture<T> one(OperationCall c, MediaType expected, Step<T> step) {
        MediaRun run = media.run(c.session());
        return media.resolve(c, c.arg(0), expected)
                .thenCompose(d -> run.work(c.where(), live -> step.apply(d, live)));
    }

    private Object addAudio(OperationCall c) {
        MediaRun run = media.run(c.session());
        CompletableFuture<MediaData> video = media.resolve(c, c.arg(0), MediaType.VIDEO);
        CompletableFuture<MediaData> audio = media.resolve(c, c.arg(1), MediaType.AUDIO);
        return video.thenCombine(audio, (v, a) -> List.of(v, a))
                .thenCompose(
                        both ->
                                run.work(
                                        c.where(),
                                        live ->
                                                ops.addAudio(
                                                        both.get(0).bytes(),
                                                        both.get(1).bytes(),
                                                        c.bool(2, false),
                                                        live,
                                                        c.where())))
                .thenApply(e -> store(run, c.where(), e));
    }

    private static Object store(MediaRun run, String where, VideoOps.Encoded e) {
        MediaType type =
                e.mimeType().startsWith("image/")
                        ? MediaType.IMAGE
                        : e.mimeType().startsWith("audio/") ? MediaType.AUDIO : MediaType.VIDEO;
        return run.store(where, new MediaData(type, e.mimeType(), e.bytes()));
    }

    private static double number(OperationCall c, int i, String name, double fallback) {
        Object v = c.arg(i);
        return v == null ? fallback : Args.number(v, c.where(), name);
    }

    private static long whole(OperationCall c, int i, String name, long fallback) {
        double d = number(c, i, name, fallback);
        if (d != Math.rint(d) || Math.abs(d) > 1e9) {
            throw VideoErrors.range(
                    c.where() + ": " + name + " must be a whole number, got " + Args.show(d));
        }
        return (long) d;
    }
}
