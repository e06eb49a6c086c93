package dev.sandjar.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A Server-Sent Events stream read from the raw response body: {@code event:} and {@code data:}
 * lines up to a blank line make an event (data lines joined by {@code \n}); comment lines ({@code
 * :...}, the server's heartbeats) are skipped. Not thread-safe.
 */
final class SseStream implements AutoCloseable {
    record Event(String name, String data) {}

    final HttpResponse<InputStream> response;
    private final BufferedReader in;

    SseStream(HttpResponse<InputStream> response) {
        this.response = response;
        this.in =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    /** The next event, or null at the end of the stream. */
    Event next() {
        String name = null;
        StringBuilder data = null;
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isEmpty()) {
                    if (name != null || data != null) {
                        return new Event(
                                name == null ? "message" : name,
                                data == null ? "" : data.toString());
                    }
                } else if (line.startsWith(":")) {
                    continue; // a comment: the server's heartbeat
                } else if (line.startsWith("event:")) {
                    name = value(line, 6);
                } else if (line.startsWith("data:")) {
                    data = data == null ? new StringBuilder() : data.append('\n');
                    data.append(value(line, 5));
                } else {
                    throw new AssertionError("not an SSE line: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (name != null || data != null) {
            throw new AssertionError("the stream ended inside an event: " + name + " " + data);
        }
        return null;
    }

    /** Every event to the end of the stream. */
    List<Event> rest() {
        List<Event> out = new ArrayList<>();
        for (Event e; (e = next()) != null; ) {
            out.add(e);
        }
        return out;
    }

    private static String value(String line, int from) {
        String v = line.substring(from);
        return v.startsWith(" ") ? v.substring(1) : v;
    }

    /** Closes the body: the JDK client cancels its subscription and drops the connection. */
    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
