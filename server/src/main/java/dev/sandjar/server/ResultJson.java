package dev.sandjar.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sandjar.bridges.node.NodeEvent;
import dev.sandjar.bridges.node.NodeResult;
import dev.sandjar.bridges.progress.ProgressReport;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.RunStats;
import dev.sandjar.host.ValueJson;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * The JSON the run routes answer with. A result is {@code {"id", "ok": true, "value", "logs",
 * "stats"}} or {@code {"id", "ok": false, "error": {"kind", "name", "message", "line", "column",
 * "stack"}, "logs", "stats"}}; the value is {@link RunResult#valueJson()} (the transport's markers
 * for what JSON cannot hold).
 */
final class ResultJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private ResultJson() {}

    interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    static String write(Body body) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    static String result(String id, RunResult r) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeStringField("id", id);
                    g.writeBooleanField("ok", r.isOk());
                    if (r.isOk()) {
                        g.writeFieldName("value");
                        g.writeRawValue(r.valueJson());
                        if (r.outputTruncated()) {
                            g.writeBooleanField("outputTruncated", true);
                        }
                    } else {
                        g.writeFieldName("error");
                        error(g, r.error());
                    }
                    g.writeArrayFieldStart("logs");
                    for (LogEntry e : r.logs()) {
                        log(g, e);
                    }
                    g.writeEndArray();
                    g.writeFieldName("stats");
                    stats(g, r.stats());
                    g.writeEndObject();
                });
    }

    /** A Code-node execution's result: the body of its stream's {@code result} event. */
    static String node(String id, NodeResult r) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeStringField("id", id);
                    g.writeBooleanField("ok", r.isOk());
                    if (r.isOk()) {
                        g.writeFieldName("outputs");
                        g.writeRawValue(ValueJson.write(r.outputs(), "outputs"));
                    } else {
                        g.writeFieldName("error");
                        error(g, r.error());
                    }
                    g.writeFieldName("state");
                    g.writeRawValue(ValueJson.write(r.state(), "state"));
                    g.writeArrayFieldStart("warnings");
                    for (String w : r.warnings()) {
                        g.writeString(w);
                    }
                    g.writeEndArray();
                    g.writeNumberField("invocations", r.invocations());
                    g.writeNumberField("emitted", r.emitted());
                    g.writeNumberField("droppedEvents", r.droppedEvents());
                    if (r.lastRun() != null) {
                        g.writeFieldName("stats");
                        stats(g, r.lastRun().stats());
                    } else {
                        g.writeNullField("stats");
                    }
                    g.writeEndObject();
                });
    }

    /** One node event's SSE data; its event name is {@link #nodeEventName}. */
    static String nodeEvent(NodeEvent event) {
        if (event instanceof NodeEvent.Log l) {
            return log(l.entry());
        }
        return write(
                g -> {
                    g.writeStartObject();
                    if (event instanceof NodeEvent.Emit e) {
                        g.writeStringField("handle", e.handle());
                        g.writeFieldName("value");
                        g.writeRawValue(ValueJson.write(e.value(), "value"));
                        g.writeNumberField("sequence", e.sequence());
                    } else if (event instanceof NodeEvent.Progress p) {
                        g.writeNumberField("percent", p.percent());
                        if (p.message() != null) {
                            g.writeStringField("message", p.message());
                        }
                    } else {
                        NodeEvent.Outputs o = (NodeEvent.Outputs) event;
                        g.writeFieldName("outputs");
                        g.writeRawValue(ValueJson.write(o.outputs(), "outputs"));
                        g.writeFieldName("state");
                        g.writeRawValue(ValueJson.write(o.state(), "state"));
                        g.writeNumberField("invocation", o.invocation());
                    }
                    g.writeEndObject();
                });
    }

    static String nodeEventName(NodeEvent event) {
        if (event instanceof NodeEvent.Emit) {
            return "emit";
        }
        if (event instanceof NodeEvent.Log) {
            return "log";
        }
        return event instanceof NodeEvent.Progress ? "progress" : "outputs";
    }

    /** An import the catalog refused before the run started: kind {@code IMPORT}, no stats. */
    static String refusedImport(String id, String message) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeStringField("id", id);
                    g.writeBooleanField("ok", false);
                    g.writeFieldName("error");
                    error(g, new RunError(RunError.Kind.IMPORT, "ImportError", message, "", 0, 0));
                    g.writeArrayFieldStart("logs");
                    g.writeEndArray();
                    g.writeNullField("stats");
                    g.writeEndObject();
                });
    }

    static void error(JsonGenerator g, RunError e) throws IOException {
        g.writeStartObject();
        g.writeStringField("kind", e.kind().name());
        g.writeStringField("name", e.name());
        g.writeStringField("message", e.message());
        g.writeNumberField("line", e.line());
        g.writeNumberField("column", e.column());
        g.writeStringField("stack", e.stack());
        g.writeEndObject();
    }

    static String log(LogEntry e) {
        return write(g -> log(g, e));
    }

    static void log(JsonGenerator g, LogEntry e) throws IOException {
        g.writeStartObject();
        g.writeStringField("level", e.level().name().toLowerCase(Locale.ROOT));
        g.writeStringField("message", e.message());
        g.writeStringField("timestamp", e.timestamp().toString());
        g.writeStringField("source", e.source());
        g.writeEndObject();
    }

    static String progress(ProgressReport p) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeNumberField("percent", p.percent());
                    if (p.message() != null) {
                        g.writeStringField("message", p.message());
                    }
                    g.writeNumberField("sequence", p.sequence());
                    g.writeNumberField("dropped", p.dropped());
                    g.writeStringField("timestamp", p.timestamp().toString());
                    g.writeEndObject();
                });
    }

    /** The stats in milliseconds (fractions kept), plus counts and bytes. */
    static void stats(JsonGenerator g, RunStats s) throws IOException {
        g.writeStartObject();
        ms(g, "wallMs", s.wallNanos());
        ms(g, "queueMs", s.queueNanos());
        ms(g, "setupMs", s.setupNanos());
        ms(g, "setupCpuMs", s.setupCpuNanos());
        ms(g, "analysisMs", s.analysisNanos());
        ms(g, "guestCpuMs", s.guestCpuNanos());
        ms(g, "hostCpuMs", s.hostCpuNanos());
        g.writeNumberField("bridgeCalls", s.bridgeCalls());
        g.writeObjectFieldStart("bridgeCallsByCapability");
        for (var e : s.bridgeCallsByBridge().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeNumberField("memoryBytes", s.memoryBytes());
        g.writeNumberField("memoryGrowthBytes", s.memoryGrowthBytes());
        g.writeBooleanField("watchdogFired", s.watchdogFired());
        g.writeEndObject();
    }

    private static void ms(JsonGenerator g, String field, long nanos) throws IOException {
        g.writeNumberField(field, nanos < 0 ? -1 : Math.round(nanos / 1e3) / 1e3);
    }

    /** {@code {"code", "message"}}: every error response's body. */
    static String apiError(String code, String message) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeStringField("code", code);
                    g.writeStringField("message", message);
                    g.writeEndObject();
                });
    }

    static String strings(String field, List<String> values) {
        return write(
                g -> {
                    g.writeStartObject();
                    g.writeArrayFieldStart(field);
                    for (String v : values) {
                        g.writeString(v);
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                });
    }
}
