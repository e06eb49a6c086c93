package dev.sandjar.bridges.media;

import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchException;
import dev.sandjar.bridges.fetch.FetchRequest;
import dev.sandjar.bridges.fetch.FetchResponse;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.RunSession;
import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The built-in {@link MediaResolver}s: {@code data:} URIs (no I/O, always on), workspace paths
 * (with the workspace grant) and {@code https:} URLs (with the fetch grant, under its SSRF guard,
 * counted against the run's requests).
 */
public final class MediaResolvers {
    private MediaResolvers() {}

    /** {@code data:[<mime>][;base64],<payload>} (RFC 2397), decoded on the engine thread. */
    public static MediaResolver dataUris() {
        return DataUris.INSTANCE;
    }

    /**
     * Paths in the run's workspace, as the guest's {@code workspace.readBytes} takes them ({@code
     * in/photo.png}, {@code /workspace/in/photo.png}), read with its containment and per-run
     * totals.
     */
    public static MediaResolver workspace(WorkspaceBridge workspace) {
        return new WorkspacePaths(workspace);
    }

    /** {@code https:} URLs, fetched through {@code fetch} as the guest's own requests are. */
    public static MediaResolver https(Fetch fetch) {
        return new HttpsUrls(fetch);
    }

    private static final class DataUris implements MediaResolver {
        static final DataUris INSTANCE = new DataUris();

        @Override
        public boolean accepts(MediaRef ref) {
            return ref.scheme().equals("data");
        }

        @Override
        public CompletionStage<Resolved> resolve(MediaRef ref, RunSession session, long maxBytes) {
            String uri = ref.uri();
            int comma = uri.indexOf(',');
            if (comma < 0) {
                throw invalid("a data: URI needs a ',' before its payload");
            }
            String head = uri.substring(5, comma);
            String payload = uri.substring(comma + 1);
            boolean base64 = head.toLowerCase(Locale.ROOT).endsWith(";base64");
            String mime = base64 ? head.substring(0, head.length() - 7) : head;
            int semi = mime.indexOf(';');
            if (semi >= 0) {
                mime = mime.substring(0, semi);
            }
            mime = mime.isBlank() ? null : mime.trim().toLowerCase(Locale.ROOT);
            // The fewest bytes the payload can decode to: refuse a huge one before decoding it.
            long estimate = base64 ? payload.length() / 4L * 3 - 2 : payload.length() / 3L;
            if (estimate > maxBytes) {
                throw MediaException.tooLarge("data: URI", -1, maxBytes);
            }
            byte[] bytes;
            try {
                bytes = base64 ? Base64.getMimeDecoder().decode(payload) : percentDecoded(payload);
            } catch (IllegalArgumentException e) {
                throw invalid(
                        "the data: URI's payload is not valid "
                                + (base64 ? "base64" : "percent-encoding"));
            }
            if (bytes.length > maxBytes) {
                throw MediaException.tooLarge("data: URI", bytes.length, maxBytes);
            }
            return CompletableFuture.completedFuture(new Resolved(bytes, mime));
        }

        private static byte[] percentDecoded(String s) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '%') {
                    if (i + 2 >= s.length()) {
                        throw new IllegalArgumentException("truncated escape");
                    }
                    out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                    i += 2;
                } else if (c < 0x80) {
                    out.write(c);
                } else {
                    byte[] utf8 =
                            String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    out.write(utf8, 0, utf8.length);
                }
            }
            return out.toByteArray();
        }

        private static MediaException invalid(String message) {
            return new MediaException(MediaException.Code.INVALID_REF, message);
        }
    }

    private static final class WorkspacePaths implements MediaResolver {
        private final WorkspaceBridge workspace;

        WorkspacePaths(WorkspaceBridge workspace) {
            this.workspace = workspace;
        }

        @Override
        public boolean accepts(MediaRef ref) {
            return ref.scheme().isEmpty() && !ref.uri().isEmpty();
        }

        @Override
        public CompletionStage<Resolved> resolve(MediaRef ref, RunSession session, long maxBytes) {
            return CompletableFuture.supplyAsync(
                    () -> {
                        byte[] bytes = workspace.readBytes(session, ref.uri());
                        if (bytes.length > maxBytes) {
                            throw MediaException.tooLarge(
                                    "workspace file " + ref.uri(), bytes.length, maxBytes);
                        }
                        return new Resolved(bytes, null);
                    },
                    session.executor());
        }
    }

    private static final class HttpsUrls implements MediaResolver {
        private final Fetch fetch;

        HttpsUrls(Fetch fetch) {
            this.fetch = fetch;
        }

        @Override
        public boolean accepts(MediaRef ref) {
            return ref.scheme().equals("https");
        }

        @Override
        public CompletionStage<Resolved> resolve(MediaRef ref, RunSession session, long maxBytes) {
            FetchRequest request;
            try {
                request = FetchRequest.builder(ref.uri()).withMethod("GET").build();
            } catch (FetchException e) {
                throw new BridgeException("FetchError", e.code().name(), e.getMessage(), e);
            }
            return fetch.fetch(session, request)
                    .thenApply(
                            r -> {
                                if (!r.ok()) {
                                    throw new MediaException(
                                            MediaException.Code.INVALID_REF,
                                            ref.uri() + " answered HTTP " + r.status());
                                }
                                if (r.body().length > maxBytes) {
                                    throw MediaException.tooLarge(
                                            ref.uri(), r.body().length, maxBytes);
                                }
                                return new Resolved(r.body(), mime(r));
                            });
        }

        private static String mime(FetchResponse r) {
            String type = r.header("content-type");
            if (type == null) {
                return null;
            }
            int semi = type.indexOf(';');
            String bare =
                    (semi < 0 ? type : type.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
            return bare.isEmpty()
                            || List.of("application/octet-stream", "binary/octet-stream")
                                    .contains(bare)
                    ? null
                    : bare;
        }
    }
}
