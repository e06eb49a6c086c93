package dev.sandjar.host;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.sandjar.transport.Undefined;
import dev.sandjar.transport.codec.Transport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a run: its value or its error, its log, the object globals after the run, the
 * limits that were in force and what it cost. Immutable.
 *
 * <p>Values are Java forms of the guest's values ({@link dev.sandjar.transport.GuestValues} lists
 * them): {@code null}, {@code Boolean}, {@code Long} or {@code Double}, {@code String}, {@code
 * List}, {@code Map<String, Object>}, {@code byte[]} for a {@code Uint8Array}, {@code Instant},
 * {@code BigInteger}, and the transport's types for the rest. A function returning nothing has the
 * value {@link Undefined#INSTANCE}.
 */
public final class RunResult {
    private static final ObjectMapper MAPPER =
            new ObjectMapper()
                    .registerModule(new JavaTimeModule())
                    .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final String runId;
    private final Object value;
    private final RunError error;
    private final boolean outputTruncated;
    private final List<LogEntry> logs;
    private final Map<String, Object> globals;
    private final Limits limits;
    private final RunStats stats;

    RunResult(
            String runId,
            Object value,
            RunError error,
            boolean outputTruncated,
            List<LogEntry> logs,
            Map<String, Object> globals,
            Limits limits,
            RunStats stats) {
        this.runId = runId;
        this.value = value;
        this.error = error;
        this.outputTruncated = outputTruncated;
        this.logs = Collections.unmodifiableList(new ArrayList<>(logs));
        this.globals = Collections.unmodifiableMap(new LinkedHashMap<>(globals));
        this.limits = limits;
        this.stats = stats;
    }

    public String runId() {
        return runId;
    }

    public boolean isOk() {
        return error == null;
    }

    /** The value; null when the run failed (see {@link #error()}). */
    public Object value() {
        return value;
    }

    /** The value, or a {@link SandboxException} carrying the error. */
    public Object valueOrThrow() {
        if (error != null) {
            throw new SandboxException(error);
        }
        return value;
    }

    /**
     * The value converted by Jackson, for example to a record: {@code result.valueAs(Row.class)}.
     * {@code undefined} converts as {@code null}; dates as {@code Instant}.
     */
    /**
     * The value as one self-contained JSON text, for output that carries no Java objects (a command
     * line, an HTTP response): plain JSON where JSON can hold the value, and the transport's
     * markers for the rest ({@code {"$sj":"undef"}}, bytes as base64, dates, bigints, maps, sets,
     * ...: docs/transport.md). {@link RunRequest.Builder#jsonGlobal} reads it back.
     *
     * @throws SandboxException when the run failed
     */
    public String valueJson() {
        return Transport.toJson(valueOrThrow(), "result");
    }

    public <T> T valueAs(Class<T> type) {
        return MAPPER.convertValue(plain(valueOrThrow()), type);
    }

    /** The value converted by Jackson to a generic type, such as {@code List<Row>}. */
    public <T> T valueAs(TypeReference<T> type) {
        return MAPPER.convertValue(plain(valueOrThrow()), type);
    }

    private static Object plain(Object v) {
        if (v == Undefined.INSTANCE) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, plain(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(plain(x)));
            return out;
        }
        return v;
    }

    /** Why the run failed; null when it succeeded. */
    public RunError error() {
        return error;
    }

    /**
     * True when the result was over the output limit and the request asked for truncation: the
     * value is then a string holding the start of the encoded JSON.
     */
    public boolean outputTruncated() {
        return outputTruncated;
    }

    /** The run's log, in order, with a notice line at the end if it was cut. */
    public List<LogEntry> logs() {
        return logs;
    }

    /**
     * The object-valued globals the request injected, as they were when the run finished (empty
     * when the run failed: a failed run's changes are not kept).
     */
    public Map<String, Object> globals() {
        return globals;
    }

    /** The limits that were in force after defaults and ceilings. */
    public Limits limits() {
        return limits;
    }

    public RunStats stats() {
        return stats;
    }

    @Override
    public String toString() {
        return error == null
                ? "RunResult[ok, value=" + value + "]"
                : "RunResult[" + error.kind() + ", " + error + "]";
    }
}
