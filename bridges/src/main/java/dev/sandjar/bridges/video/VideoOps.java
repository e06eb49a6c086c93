package dev.sandjar.bridges.video;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.host.HostCall;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The video operations over encoded bytes: each call writes its inputs into a private directory,
 * reads them with ffprobe, runs one ffmpeg whose argv it builds from fixed words and the numbers it
 * checked, and reads the one file ffmpeg made. Videos come out as H.264/AAC in MP4, audio as WAV
 * (16-bit PCM) or MP3, frames as PNG or JPEG.
 */
final class VideoOps {
    /** An encoded result. */
    record Encoded(byte[] bytes, String mimeType) {}

    private static final List<String> H264_MP4 =
            List.of(
                    "-sn",
                    "-dn",
                    "-c:v",
                    "libx264",
                    "-preset",
                    "veryfast",
                    "-pix_fmt",
                    "yuv420p",
                    "-c:a",
                    "aac",
                    "-movflags",
                    "+faststart",
                    "-f",
                    "mp4");

    private final Ffmpeg ffmpeg;

    VideoOps(Ffmpeg ffmpeg) {
        this.ffmpeg = ffmpeg;
    }

    VideoConfig config() {
        return ffmpeg.config();
    }

    /**
     * What ffprobe reads: {@code format}, {@code mimeType}, {@code duration} (seconds), {@code
     * size}, {@code width}, {@code height}, {@code frameRate}, {@code videoCodec}, {@code
     * hasAudio}, {@code audioCodec}, {@code sampleRate}, {@code channels}; absent keys are absent
     * streams.
     */
    Map<String, Object> info(byte[] video, HostCall cancelled, String where) {
        try (Job job = new Job(where, cancelled)) {
            return job.probe(job.input(video, "in0"), false).describe(video.length);
        }
    }

    Encoded trim(byte[] video, double start, double end, HostCall cancelled, String where) {
        try (Job job = new Job(where, cancelled)) {
            Path in = job.input(video, "in0");
            Probe p = job.probe(in, true);
            if (!(start >= 0) || Double.isInfinite(start) || !(start < p.duration)) {
                throw VideoErrors.range(
                        where
                                + ": start must be at least 0 and before the video's end ("
                                + seconds(p.duration)
                                + " s), got "
                                + Args.show(start));
            }
            if (!Double.isNaN(end) && !(end > start)) {
                throw VideoErrors.range(
                        where
                                + ": end must be after start ("
                                + Args.show(start)
                                + "), got "
                                + Args.show(end));
            }
            double stop = Double.isNaN(end) ? p.duration : Math.min(end, p.duration);
            List<String> args = new ArrayList<>(List.of("-ss", seconds(start)));
            args.addAll(job.inputArgs(in));
            args.addAll(List.of("-t", seconds(stop - start)));
            return job.encodeVideo(args, List.of());
        }
    }

    /**
     * Scales to {@code width} x {@code height}; a missing side (0) keeps the aspect ratio, rounded
     * to an even size as H.264 needs.
     */
    Encoded resize(byte[] video, long width, long height, HostCall cancelled, String where) {
        int max = config().maxEdge();
        if (width == 0 && height == 0) {
            throw VideoErrors.range(where + ": give width, height or both");
        }
        checkEdge("width", width, max, where);
        checkEdge("height", height, max, where);
        try (Job job = new Job(where, cancelled)) {
            Path in = job.input(video, "in0");
            job.probe(in, true);
            String w = width == 0 ? "-2" : Long.toString(width);
            String h = height == 0 ? "-2" : Long.toString(height);
            List<String> args = new ArrayList<>(job.inputArgs(in));
            return job.encodeVideo(args, List.of("-vf", "scale=" + w + ":" + h));
        }
    }

    /** Turns the picture clockwise by 90, 180 or 270 degrees (-90 is 270). */
    Encoded rotate(byte[] video, long degrees, HostCall cancelled, String where) {
        String filter =
                switch ((int) Math.floorMod(degrees, 360L)) {
                    case 90 -> "transpose=1";
                    case 180 -> "hflip,vflip";
                    case 270 -> "transpose=2";
                    default ->
                            throw VideoErrors.range(
                                    where
                                            + ": degrees must be 90, 180, 270 or -90, got "
                                            + degrees);
                };
        try (Job job = new Job(where, cancelled)) {
            Path in = job.input(video, "in0");
            job.probe(in, true);
            return job.encodeVideo(new ArrayList<>(job.inputArgs(in)), List.of("-vf", filter));
        }
    }

    /**
     * The video with {@code audio} as its sound track, as long as the video (a shorter track ends
     * early, a longer one is cut); with {@code keepOriginal} the video's own sound is mixed in.
     */
    Encoded addAudio(
            byte[] video, byte[] audio, boolean keepOriginal, HostCall cancelled, String where) {
        try (Job job = new Job(where, cancelled)) {
            Path v = job.input(video, "in0");
            Path a = job.input(audio, "in1");
            Probe pv = job.probe(v, true);
            Probe pa = job.probe(a, false);
            if (!pa.hasAudio) {
                throw VideoErrors.unsupported(where + ": the audio input has no audio stream");
            }
            List<String> args = new ArrayList<>(job.inputArgs(v));
            args.addAll(job.inputArgs(a));
            List<String> maps = new ArrayList<>();
            if (keepOriginal && pv.hasAudio) {
                maps.addAll(
                        List.of(
                                "-filter_complex",
                                "[0:a:0][1:a:0]amix=inputs=2:duration=first:dropout_transition=0[mixed]",
                                "-map",
                                "0:v:0",
                                "-map",
                                "[mixed]"));
            } else {
                maps.addAll(List.of("-map", "0:v:0", "-map", "1:a:0"));
            }
            maps.addAll(List.of("-t", seconds(pv.duration)));
            return job.encodeVideo(args, maps);
        }
    }

    /** The sound track as {@code wav} (16-bit PCM at the track's rate) or {@code mp3}. */
    Encoded extractAudio(byte[] video, String format, HostCall cancelled, String where) {
        List<String> codec =
                switch (format) {
                    case "wav" -> List.of("-c:a", "pcm_s16le", "-f", "wav");
                    case "mp3" -> List.of("-c:a", "libmp3lame", "-q:a", "4", "-f", "mp3");
                    default ->
                            throw VideoErrors.range(
                                    where
                                            + ": format must be 'wav' or 'mp3', got '"
                                            + format
                                            + "'");
                };
        try (Job job = new Job(where, cancelled)) {
            Path in = job.input(video, "in0");
            Probe p = job.probe(in, false);
            if (!p.hasAudio) {
                throw VideoErrors.unsupported(where + ": the video has no audio stream");
            }
            List<String> args = new ArrayList<>(job.inputArgs(in));
            args.addAll(List.of("-vn", "-sn", "-dn", "-map", "0:a:0"));
            args.addAll(codec);
            return job.output(
                    args, "out." + format, format.equals("wav") ? "audio/wav" : "audio/mpeg");
        }
    }

    /** The frame shown at {@code time} seconds, as {@code png} or {@code jpeg}. */
    Encoded extractFrame(
            byte[] video, double time, String format, HostCall cancelled, String where) {
        List<String> codec =
                switch (format) {
                    case "png" -> List.of("-c:v", "png", "-f", "image2");
                    case "jpeg" ->
                            List.of(
                                    "-c:v",
                                    "mjpeg",
                                    "-q:v",
                                    "2",
                                    "-pix_fmt",
                                    "yuvj444p",
                                    "-f",
                                    "image2");
                    default ->
                            throw VideoErrors.range(
                                    where
                                            + ": format must be 'png' or 'jpeg', got '"
                                            + format
                                            + "'");
                };
        try (Job job = new Job(where, cancelled)) {
            Path in = job.input(video, "in0");
            Probe p = job.probe(in, true);
            if (!(time >= 0) || Double.isInfinite(time) || !(time < p.duration)) {
                throw VideoErrors.range(
                        where
                                + ": time must be at least 0 and before the video's end ("
                                + seconds(p.duration)
                                + " s), got "
                                + Args.show(time));
            }
            List<String> args = new ArrayList<>(List.of("-ss", seconds(time)));
            args.addAll(job.inputArgs(in));
            args.addAll(List.of("-an", "-sn", "-dn", "-frames:v", "1", "-update", "1"));
            args.addAll(codec);
            return job.output(args, "frame." + format, "image/" + format);
        }
    }

    private static void checkEdge(String name, long value, int max, String where) {
        if (value < 0 || value > max || value % 2 != 0) {
            throw VideoErrors.range(
                    where
                            + ": "
                            + name
                            + " must be an even number of pixels up to "
                            + max
                            + " (H.264 needs even sizes), got "
                            + value);
        }
    }

    static String seconds(double s) {
        return String.format(Locale.ROOT, "%.6f", s);
    }

    /** What ffprobe said of one input. */
    private static final class Probe {
        String format = "";
        double duration = Double.NaN;
        boolean hasVideo;
        boolean hasAudio;
        long width;
        long height;
        double frameRate = Double.NaN;
        String videoCodec;
        String audioCodec;
        long sampleRate;
        long channels;

        Map<String, Object> describe(long size) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("format", format);
            m.put("mimeType", mimeType());
            if (!Double.isNaN(duration)) {
                m.put("duration", duration);
            }
            m.put("size", size);
            m.put("hasVideo", hasVideo);
            if (hasVideo) {
                m.put("width", width);
                m.put("height", height);
                if (!Double.isNaN(frameRate)) {
                    m.put("frameRate", frameRate);
                }
                m.put("videoCodec", videoCodec);
            }
            m.put("hasAudio", hasAudio);
            if (hasAudio) {
                m.put("audioCodec", audioCodec);
                m.put("sampleRate", sampleRate);
                m.put("channels", channels);
            }
            return m;
        }

        String mimeType() {
            List<String> names = List.of(format.split(","));
            if (names.contains("mp4")) {
                return hasVideo ? "video/mp4" : "audio/mp4";
            }
            if (names.contains("webm") || names.contains("matroska")) {
                return hasVideo ? "video/x-matroska" : "audio/x-matroska";
            }
            if (names.contains("ogg")) {
                return hasVideo ? "video/ogg" : "audio/ogg";
            }
            return switch (names.get(0)) {
                case "avi" -> "video/x-msvideo";
                case "mpegts" -> "video/mp2t";
                case "flv" -> "video/x-flv";
                case "wav" -> "audio/wav";
                case "mp3" -> "audio/mpeg";
                case "aac" -> "audio/aac";
                case "flac" -> "audio/flac";
                case "aiff" -> "audio/aiff";
                case "au" -> "audio/basic";
                default -> "application/octet-stream";
            };
        }

        /** Reads ffprobe's {@code -of flat} output: {@code streams.stream.0.width=64}. */
        static Probe parse(String flat) {
            Probe p = new Probe();
            Map<String, Map<String, String>> streams = new LinkedHashMap<>();
            for (String line : flat.split("\n")) {
                int eq = line.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String key = line.substring(0, eq);
                String value = line.substring(eq + 1).strip();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                if (key.equals("format.format_name")) {
                    p.format = value;
                } else if (key.equals("format.duration")) {
                    p.duration = number(value);
                } else if (key.startsWith("streams.stream.")) {
                    String rest = key.substring("streams.stream.".length());
                    int dot = rest.indexOf('.');
                    if (dot > 0) {
                        streams.computeIfAbsent(rest.substring(0, dot), k -> new LinkedHashMap<>())
                                .put(rest.substring(dot + 1), value);
                    }
                }
            }
            for (Map<String, String> s : streams.values()) {
                String type = s.getOrDefault("codec_type", "");
                if (type.equals("video") && !p.hasVideo) {
                    p.hasVideo = true;
                    p.width = (long) number(s.getOrDefault("width", "0"));
                    p.height = (long) number(s.getOrDefault("height", "0"));
                    p.frameRate = rate(s.getOrDefault("avg_frame_rate", ""));
                    p.videoCodec = s.getOrDefault("codec_name", "unknown");
                } else if (type.equals("audio") && !p.hasAudio) {
                    p.hasAudio = true;
                    p.audioCodec = s.getOrDefault("codec_name", "unknown");
                    p.sampleRate = (long) number(s.getOrDefault("sample_rate", "0"));
                    p.channels = (long) number(s.getOrDefault("channels", "0"));
                }
            }
            return p;
        }

        private static double number(String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }

        private static double rate(String s) {
            int slash = s.indexOf('/');
            if (slash < 0) {
                return number(s);
            }
            double d = number(s.substring(slash + 1));
            return d > 0 ? number(s.substring(0, slash)) / d : Double.NaN;
        }
    }

    /** One call: its private directory, deadline and cancellation. */
    private final class Job implements AutoCloseable {
        private final String where;
        private final HostCall cancelled;
        private final long deadline;
        private final Path dir;

        Job(String where, HostCall cancelled) {
            if (!config().available()) {
                throw VideoErrors.error(
                        "UNAVAILABLE",
                        where
                                + ": video needs ffmpeg and ffprobe on the host"
                                + " (Debian package ffmpeg), and they were not found");
            }
            this.where = where;
            this.cancelled = cancelled;
            this.deadline = System.nanoTime() + config().timeout().toNanos();
            this.dir = Ffmpeg.workDir();
        }

        Path input(byte[] bytes, String name) {
            if (bytes.length > config().maxInputBytes()) {
                throw VideoErrors.tooLarge(
                        where
                                + ": an input is "
                                + bytes.length
                                + " bytes; the limit is "
                                + config().maxInputBytes());
            }
            Path file = dir.resolve(name);
            try {
                Files.write(file, bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return file;
        }

        /** The guarded {@code -i} of a file this job wrote. */
        List<String> inputArgs(Path file) {
            List<String> args = new ArrayList<>(Ffmpeg.INPUT_GUARD);
            args.addAll(List.of("-i", "file:" + file.getFileName()));
            return args;
        }

        Probe probe(Path file, boolean needVideo) {
            List<String> args = new ArrayList<>(Ffmpeg.INPUT_GUARD);
            args.addAll(
                    List.of(
                            "-show_entries",
                            "format=format_name,duration:stream=codec_type,codec_name,width,height,"
                                    + "avg_frame_rate,sample_rate,channels",
                            "-of",
                            "flat",
                            "file:" + file.getFileName()));
            Probe p;
            try {
                p = Probe.parse(ffmpeg.ffprobe(args, dir, deadline, cancelled, where));
            } catch (dev.sandjar.host.BridgeException e) {
                if (e.code().equals("FAILED")) {
                    throw VideoErrors.unsupported(
                            where
                                    + ": the input is not a video or audio file ffprobe reads"
                                    + " (containers read: "
                                    + Ffmpeg.FORMATS
                                    + ")");
                }
                throw e;
            }
            if (needVideo && !p.hasVideo) {
                throw VideoErrors.unsupported(where + ": the input has no video stream");
            }
            int max = config().maxEdge();
            if (p.hasVideo && (p.width > max || p.height > max)) {
                throw VideoErrors.tooLarge(
                        where
                                + ": the video is "
                                + p.width
                                + "x"
                                + p.height
                                + "; the limit is "
                                + max
                                + " pixels per side");
            }
            if (Double.isNaN(p.duration) && (needVideo || p.hasAudio)) {
                p.duration = 0;
            }
            return p;
        }

        Encoded encodeVideo(List<String> inputs, List<String> filters) {
            List<String> args = new ArrayList<>(inputs);
            args.addAll(filters);
            args.addAll(H264_MP4);
            return output(args, "out.mp4", "video/mp4");
        }

        Encoded output(List<String> args, String name, String mimeType) {
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("-fs", Long.toString(config().maxOutputBytes()), "file:" + name));
            ffmpeg.ffmpeg(all, dir, deadline, cancelled, where);
            Path out = dir.resolve(name);
            try {
                if (!Files.isRegularFile(out)) {
                    throw VideoErrors.error("FAILED", where + ": ffmpeg made no output");
                }
                long size = Files.size(out);
                if (size >= config().maxOutputBytes()) {
                    throw VideoErrors.tooLarge(
                            where
                                    + ": the result reached the limit of "
                                    + config().maxOutputBytes()
                                    + " bytes");
                }
                return new Encoded(Files.readAllBytes(out), mimeType);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            Ffmpeg.delete(dir);
        }
    }
}
