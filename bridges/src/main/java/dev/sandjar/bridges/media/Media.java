package dev.sandjar.bridges.media;

import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.host.RunSession;
import dev.sandjar.transport.BinaryValue;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The media capabilities' shared core and the guest's {@code media} object. One {@code Media} holds
 * the {@link MediaLimits} and the {@link MediaResolver}s, and gives each run one {@link MediaRun}
 * (its handle store and CPU account); every bridge built on the same {@code Media} ({@code media},
 * {@code image}, {@code canvas}, audio, video) shares them, so a handle one makes another reads.
 * Immutable and thread-safe.
 *
 * <p>Guest surface (all async): {@code media.bytes(ref)} (Uint8Array), {@code media.text(ref,
 * {encoding})}, {@code media.info(ref)} ({@code {type, mimeType, uri, size}}), and {@code
 * media.toDocument/toImage/toAudio/toVideo(bytes|handle|ref, {mimeType, filename})}, which return a
 * self-contained ref ({@code data:} URI) that outlives the run. A ref is {@code {type, uri,
 * mimeType?}}; a handle is a ref whose uri is {@code sandbox://media/<id>}.
 *
 * <p>For bridges built on it (audio, video): {@link #resolve} turns whatever the guest passed into
 * bytes, {@link #run} gives the run's store ({@link MediaRun#store}, {@link MediaRun#get}) and
 * {@link MediaRun#work} runs work off the engine thread with its CPU counted, and {@link
 * #guestSource} wraps a guest script with the shared argument normaliser.
 */
public final class Media {
    private static final String INPUT_JS = GuestScripts.load(Media.class, "input.js");
    // Wrapped once (after INPUT_JS, which it uses): see Images.GUEST.
    private static final String MEDIA_JS = guestSource(GuestScripts.load(Media.class, "media.js"));

    /** Long strings cross the transport in pieces this long (see input.js). */
    static final int PIECE = 8192;

    private final MediaLimits limits;
    private final List<MediaResolver> resolvers;
    private final boolean workspaceGranted;
    private final boolean fetchGranted;
    private final Bridge bridge;

    private Media(Builder b) {
        this.limits = b.limits;
        List<MediaResolver> all = new ArrayList<>(b.resolvers);
        all.add(MediaResolvers.dataUris());
        if (b.workspace != null) {
            all.add(MediaResolvers.workspace(b.workspace));
        }
        if (b.fetch != null) {
            all.add(MediaResolvers.https(b.fetch));
        }
        this.resolvers = List.copyOf(all);
        this.workspaceGranted = b.workspace != null;
        this.fetchGranted = b.fetch != null;
        Param input = Param.any("input");
        this.bridge =
                Bridge.builder("media")
                        .guest(MEDIA_JS)
                        .operation(
                                Operation.builder("bytes")
                                        .param(input)
                                        .handler(
                                                c ->
                                                        resolve(c, c.arg(0), null)
                                                                .thenApply(MediaData::bytes))
                                        .build())
                        .operation(
                                Operation.builder("text")
                                        .param(input)
                                        .param(Param.string("encoding").maxLength(64))
                                        .handler(this::text)
                                        .build())
                        .operation(
                                Operation.builder("info").param(input).handler(this::info).build())
                        .operation(
                                Operation.builder("build")
                                        .param(Param.string("type").maxLength(16))
                                        .param(input)
                                        .param(Param.string("mimeType").maxLength(255).optional())
                                        .param(Param.string("filename").maxLength(255).optional())
                                        .handler(this::build)
                                        .build())
                        .build();
    }

    /** {@code data:} refs and handles only; no workspace, no network. */
    public static Media create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The guest's {@code media} object. */
    public Bridge bridge() {
        return bridge;
    }

    public MediaLimits limits() {
        return limits;
    }

    /** This run's media state, made on first use and released when the run ends. */
    public MediaRun run(RunSession session) {
        return session.state(this, () -> new MediaRun(session, limits));
    }

    /**
     * A guest script {@code (host, mediaInput) => {...}} as a bridge's guest source: {@code
     * mediaInput(value, where)} turns whatever the guest passed (a ref, a handle, a uri string,
     * bytes) into the form {@link #resolve} takes, or throws the guest a {@code TypeError}.
     */
    public static String guestSource(String script) {
        return "(host) => (" + script + ")(host, (" + INPUT_JS + ")(host))";
    }

    /**
     * The media the guest passed as {@code input} (normalised by {@code mediaInput}): a handle of
     * this run, a ref read through the resolvers, or bytes. {@code expected}, when not null, is the
     * type the caller needs: a ref or handle of another type fails {@code WRONG_TYPE}. Each input
     * is capped at {@code maxInputBytes}. Completes on whatever thread the read finished on.
     */
    public CompletableFuture<MediaData> resolve(
            OperationCall call, Object input, MediaType expected) {
        String where = call.where();
        if (input instanceof byte[] || input instanceof BinaryValue) {
            byte[] bytes = input instanceof byte[] b ? b : ((BinaryValue) input).bytes();
            checkSize(where, bytes.length);
            String mime = MimeTypes.sniff(bytes);
            MediaType type = expected != null ? expected : MimeTypes.typeOf(mime);
            return CompletableFuture.completedFuture(new MediaData(type, mime, bytes));
        }
        MediaRef ref = ref(where, input);
        checkType(where, ref.type(), expected, ref.uri());
        if (ref.isHandle()) {
            MediaData data = run(call.session()).get(where, ref.uri());
            checkType(where, data.type(), expected, ref.uri());
            return CompletableFuture.completedFuture(data);
        }
        MediaResolver resolver = resolverFor(where, ref);
        return resolver.resolve(ref, call.session(), limits.maxInputBytes())
                .toCompletableFuture()
                .thenApply(
                        r -> {
                            checkSize(where, r.bytes().length);
                            String mime =
                                    ref.mimeType() != null
                                            ? ref.mimeType()
                                            : r.mimeType() != null
                                                    ? r.mimeType()
                                                    : MimeTypes.sniff(r.bytes());
                            MediaType type =
                                    ref.type() != null
                                            ? ref.type()
                                            : expected != null ? expected : MimeTypes.typeOf(mime);
                            return new MediaData(type, mime, r.bytes(), ref.filename());
                        });
    }

    private MediaResolver resolverFor(String where, MediaRef ref) {
        for (MediaResolver r : resolvers) {
            if (r.accepts(ref)) {
                return r;
            }
        }
        String scheme = ref.scheme();
        if (scheme.isEmpty() && !workspaceGranted) {
            throw new MediaException(
                    MediaException.Code.NOT_GRANTED,
                    where
                            + ": '"
                            + shortened(ref.uri())
                            + "' is a workspace path, and this run has no workspace");
        }
        if (scheme.equals("https") && !fetchGranted) {
            throw new MediaException(
                    MediaException.Code.NOT_GRANTED,
                    where + ": '" + shortened(ref.uri()) + "' needs fetch, and this run has none");
        }
        throw new MediaException(
                MediaException.Code.INVALID_REF,
                where
                        + ": cannot read '"
                        + shortened(ref.uri())
                        + "'; a ref's uri is a sandbox://media/ handle, a data: URI"
                        + (workspaceGranted ? ", a workspace path" : "")
                        + (fetchGranted ? " or an https: URL" : ""));
    }

    private void checkSize(String where, long size) {
        if (size > limits.maxInputBytes()) {
            throw MediaException.tooLarge(where, size, limits.maxInputBytes());
        }
    }

    private static void checkType(String where, MediaType actual, MediaType expected, String uri) {
        if (actual != null && expected != null && actual != expected) {
            throw new MediaException(
                    MediaException.Code.WRONG_TYPE,
                    where
                            + ": "
                            + shortened(uri)
                            + " is "
                            + (actual == MediaType.AUDIO || actual == MediaType.IMAGE
                                    ? "an "
                                    : "a ")
                            + actual.guestName()
                            + "; this call needs "
                            + (expected == MediaType.AUDIO || expected == MediaType.IMAGE
                                    ? "an "
                                    : "a ")
                            + expected.guestName());
        }
    }

    /**
     * A ref from the normalised guest value: a map {type?, uri | uriPieces, mimeType?, filename?}.
     */
    private static MediaRef ref(String where, Object input) {
        if (!(input instanceof Map<?, ?> m)) {
            throw new MediaException(
                    MediaException.Code.INVALID_REF,
                    where + ": expected a media ref {type, uri}, a handle, or bytes");
        }
        String uri = joined(m.get("uri"));
        if (uri == null) {
            throw new MediaException(
                    MediaException.Code.INVALID_REF, where + ": a media ref needs a string uri");
        }
        MediaType type = null;
        if (m.get("type") instanceof String t) {
            type = MediaType.fromGuest(t);
            if (type == null) {
                throw new MediaException(
                        MediaException.Code.INVALID_REF,
                        where
                                + ": a ref's type is image, audio, video or document, got '"
                                + shortened(t)
                                + "'");
            }
        }
        String mime = m.get("mimeType") instanceof String s && !s.isBlank() ? s : null;
        String filename = m.get("filename") instanceof String s && !s.isBlank() ? s : null;
        return new MediaRef(type, uri, mime, filename);
    }

    /** A string, or a list of string pieces (how long strings cross; see input.js), joined. */
    private static String joined(Object v) {
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof List<?> pieces) {
            StringBuilder b = new StringBuilder();
            for (Object p : pieces) {
                if (!(p instanceof String s)) {
                    return null;
                }
                b.append(s);
            }
            return b.toString();
        }
        return null;
    }

    static String shortened(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private Object text(OperationCall call) {
        String name = call.string(1);
        Charset charset;
        try {
            charset = Charset.forName(name);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            throw new BridgeException(
                    "RangeError",
                    "UNSUPPORTED_ENCODING",
                    call.where() + ": unknown encoding '" + name + "'");
        }
        return resolve(call, call.arg(0), null)
                .thenApply(
                        d -> {
                            try {
                                return charset.newDecoder()
                                        .onMalformedInput(CodingErrorAction.REPLACE)
                                        .onUnmappableCharacter(CodingErrorAction.REPLACE)
                                        .decode(ByteBuffer.wrap(d.bytes()))
                                        .toString();
                            } catch (java.nio.charset.CharacterCodingException e) {
                                throw new IllegalStateException("REPLACE cannot fail", e);
                            }
                        });
    }

    private Object info(OperationCall call) {
        Object input = call.arg(0);
        String uri = input instanceof Map<?, ?> m ? joined(m.get("uri")) : null;
        return resolve(call, input, null)
                .thenApply(
                        d -> {
                            Map<String, Object> out = new LinkedHashMap<>();
                            out.put("type", d.type().guestName());
                            out.put("mimeType", d.mimeType());
                            out.put("uri", uri == null ? null : pieces(uri));
                            out.put("size", (long) d.size());
                            if (d.filename() != null) {
                                out.put("filename", d.filename());
                            }
                            return out;
                        });
    }

    /** media.toImage and friends: a self-contained data: ref that outlives the run. */
    private Object build(OperationCall call) {
        MediaType type = MediaType.fromGuest(call.string(0));
        if (type == null) {
            throw BridgeException.invalidArgument(
                    call.where() + ": unknown type " + call.string(0));
        }
        String mimeArg = (String) call.arg(2);
        String filename = (String) call.arg(3);
        // A document may hold anything; an image, audio or video ref must be one.
        return resolve(call, call.arg(1), type == MediaType.DOCUMENT ? null : type)
                .thenApply(
                        d -> {
                            String mime = mimeArg != null ? mimeArg : d.mimeType();
                            if (!mime.matches("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+")) {
                                throw new MediaException(
                                        MediaException.Code.INVALID_ARGUMENT,
                                        call.where()
                                                + ": mimeType must look like type/subtype, got '"
                                                + shortened(mime)
                                                + "'");
                            }
                            String uri =
                                    "data:"
                                            + mime
                                            + ";base64,"
                                            + Base64.getEncoder().encodeToString(d.bytes());
                            Map<String, Object> out = new LinkedHashMap<>();
                            out.put("type", type.guestName());
                            out.put("uri", pieces(uri));
                            out.put("mimeType", mime);
                            String name = filename != null ? filename : d.filename();
                            if (name != null) {
                                out.put("filename", name);
                            }
                            return out;
                        });
    }

    /** A long string as pieces the guest joins (the transport is slow on long strings). */
    static Object pieces(String s) {
        if (s.length() <= PIECE) {
            return s;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < s.length(); i += PIECE) {
            out.add(s.substring(i, Math.min(s.length(), i + PIECE)));
        }
        return out;
    }

    /** Grants and configuration; {@code Media.builder().withWorkspace(ws).withFetch(f).build()}. */
    public static final class Builder {
        private MediaLimits limits = MediaLimits.defaults();
        private final List<MediaResolver> resolvers = new ArrayList<>();
        private WorkspaceBridge workspace;
        private Fetch fetch;

        private Builder() {}

        public Builder withLimits(MediaLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Refs read from the run's workspace (plain paths), through its containment and totals. */
        public Builder withWorkspace(WorkspaceBridge workspace) {
            this.workspace = workspace;
            return this;
        }

        /** Refs read over {@code https:}, as the run's own fetches (counted, SSRF-guarded). */
        public Builder withFetch(Fetch fetch) {
            this.fetch = fetch;
            return this;
        }

        /** A caller's resolver, asked before the built-in ones. */
        public Builder addResolver(MediaResolver resolver) {
            resolvers.add(Objects.requireNonNull(resolver, "resolver"));
            return this;
        }

        public Media build() {
            return new Media(this);
        }
    }
}
