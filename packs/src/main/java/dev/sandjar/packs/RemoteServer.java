package dev.sandjar.packs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The two routes of a Sandjar server a remote catalog reads, {@code GET /api/packs} and {@code GET
 * /api/sandbox-modules/{id}}, with a bearer token, a timeout per request and a bound on every body.
 * Each module body is checked against its {@code X-Content-Sha256} before it is returned.
 * Thread-safe.
 */
final class RemoteServer {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    static final Pattern GRAPH_DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    /** One delivered module, its body checked against its stated SHA-256. */
    record Delivered(
            String graphId,
            String source,
            String sha256,
            String graphDigest,
            List<String> dependencyIds,
            String hostModule,
            String npm) {
        Delivered {
            dependencyIds = List.copyOf(dependencyIds);
        }
    }

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final int maxModuleBytes;
    private final int maxListBytes;
    private final HttpClient http;

    RemoteServer(
            URI base,
            String token,
            Duration timeout,
            int maxModuleBytes,
            int maxListBytes,
            HttpClient http) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        this.token = token;
        this.timeout = timeout;
        this.maxModuleBytes = maxModuleBytes;
        this.maxListBytes = maxListBytes;
        this.http = http;
    }

    /** The server's pack list, as JSON bytes. */
    byte[] packList() {
        return get("/api/packs", maxListBytes, "the pack list").body();
    }

    /** One module by delivery id, its body verified against {@code X-Content-Sha256}. */
    Delivered module(String id) {
        String what = "module '" + id + "'";
        Answer a = get("/api/sandbox-modules/" + encode(id), maxModuleBytes, what);
        String sha = a.header("X-Content-Sha256");
        String digest = a.header("X-Content-Digest");
        String graphId = a.header("X-Sandbox-File-Id");
        if (sha == null || !SHA256_HEX.matcher(sha).matches()) {
            throw bad(a, what, "has no valid X-Content-Sha256 header (64 lower-case hex digits)");
        }
        if (digest == null || !GRAPH_DIGEST.matcher(digest).matches()) {
            throw bad(a, what, "has no valid X-Content-Digest header (sha256: and 64 hex digits)");
        }
        if (graphId == null || graphId.isEmpty()) {
            throw bad(a, what, "has no X-Sandbox-File-Id header");
        }
        String actual = Digests.sha256Hex(a.body());
        if (!actual.equals(sha)) {
            throw bad(
                    a,
                    what,
                    "has a body whose SHA-256 is "
                            + actual
                            + ", not the "
                            + sha
                            + " its X-Content-Sha256 header states; it was not used");
        }
        String source;
        try {
            source =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(a.body()))
                            .toString();
        } catch (CharacterCodingException e) {
            throw bad(a, what, "has a body that is not UTF-8");
        }
        String deps = a.header("X-Sandbox-Module-Dependencies");
        return new Delivered(
                graphId,
                source,
                sha,
                digest,
                deps == null ? List.of() : splitIds(deps),
                a.header("X-Sandbox-Host-Module"),
                a.header("X-Sandbox-Npm"));
    }

    private record Answer(String request, byte[] body, HttpResponse<?> response) {
        String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }
    }

    private static RemoteCatalogException bad(Answer a, String what, String problem) {
        return new RemoteCatalogException(
                a.request() + ": the server's answer for " + what + " " + problem);
    }

    private Answer get(String path, int maxBytes, String what) {
        String request = "GET " + base + path;
        HttpRequest.Builder req =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).GET();
        if (token != null) {
            req.header("Authorization", "Bearer " + token);
        }
        HttpResponse<InputStream> res;
        try {
            res = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            throw new RemoteCatalogException(
                    request + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            throw new RemoteCatalogException(
                    request + ": the server cannot be reached (" + e + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteCatalogException(request + ": interrupted", e);
        }
        try (InputStream in = res.body()) {
            int status = res.statusCode();
            if (status != 200) {
                String why =
                        switch (status) {
                            case 401 ->
                                    "the server refused the token (401): it is missing, wrong or"
                                            + " revoked";
                            case 403 -> "the token may not read " + what + " (403)";
                            case 404 -> "the server delivers no " + what + " to this token (404)";
                            default -> "the server answered " + status + " for " + what;
                        };
                throw new RemoteCatalogException(request + ": " + why);
            }
            long declared = res.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (declared > maxBytes) {
                throw new RemoteCatalogException(
                        request
                                + ": "
                                + what
                                + " is "
                                + declared
                                + " bytes, over the bound of "
                                + maxBytes
                                + " bytes");
            }
            byte[] body = in.readNBytes(maxBytes + 1);
            if (body.length > maxBytes) {
                throw new RemoteCatalogException(
                        request + ": " + what + " is over the bound of " + maxBytes + " bytes");
            }
            return new Answer(request, body, res);
        } catch (HttpTimeoutException e) {
            throw new RemoteCatalogException(
                    request + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            throw new RemoteCatalogException(
                    request + ": the answer could not be read (" + e + ")", e);
        }
    }

    /** Percent-encodes everything outside {@code A-Za-z0-9@/:._~-}, as the server's headers do. */
    static String encode(String id) {
        StringBuilder out = new StringBuilder();
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || "@/:._~-".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /** The ids of an {@code X-Sandbox-Module-Dependencies} header, percent-decoded. */
    static List<String> splitIds(String header) {
        List<String> out = new ArrayList<>();
        for (String part : header.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) {
                out.add(decode(p));
            }
        }
        return out;
    }

    private static String decode(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int hex = c == '%' && i + 2 < s.length() ? hexByte(s, i + 1) : -1;
            if (hex >= 0) {
                out.write(hex);
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int hexByte(String s, int at) {
        int hi = Character.digit(s.charAt(at), 16);
        int lo = Character.digit(s.charAt(at + 1), 16);
        return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
    }
}
