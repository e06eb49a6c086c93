package dev.sandjar.host;

import dev.sandjar.host.RunExecution.GuestFailure;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsException;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.transport.Undefined;
import dev.sandjar.transport.codec.Transport;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Values across the boundary for one run (docs/transport.md): Java values into the guest (simple
 * ones made directly, the rest through the engine's binary format or the codec), and guest values
 * out, by the binary path when it provably gives what the codec would, else by the codec, with the
 * output limit checked before anything is copied out. Guest failures surface as {@link
 * GuestFailure}. Engine thread only.
 */
final class ValueTransfer {
    private static final Object NOT_PLAIN = new Object();

    private final JsContext ctx;
    private final Template template;
    private final long outputBytes;
    private final Function<JsError, RunError> errors;
    private final Runnable backFromGuest;

    /** A value read out of the guest; {@code truncated} when it was cut to the output limit. */
    record Encoded(Object value, boolean truncated) {}

    /**
     * @param errors the run's mapping of a guest error to its run error
     * @param backFromGuest called when encoding code returns, before the host decodes what it
     *     wrote; throws {@link GuestFailure} when the run's budget is spent
     */
    ValueTransfer(
            Template template,
            long outputBytes,
            Function<JsError, RunError> errors,
            Runnable backFromGuest) {
        this.ctx = template.context;
        this.template = template;
        this.outputBytes = outputBytes;
        this.errors = errors;
        this.backFromGuest = backFromGuest;
    }

    /** An owned guest value for a Java value; simple values are made directly, the rest decode. */
    JsValue toGuest(Object v, String where) {
        if (v == null) {
            return ctx.nullValue();
        }
        if (v == Undefined.INSTANCE) {
            return ctx.undefined();
        }
        if (v instanceof Boolean b) {
            return ctx.bool(b);
        }
        if (v instanceof String s && s.length() <= Transport.LONG_STRING) {
            return ctx.newString(s);
        }
        if ((v instanceof Integer || v instanceof Long)
                && Math.abs(((Number) v).longValue()) <= (1L << 53) - 1) {
            return ctx.newNumber(((Number) v).longValue());
        }
        if (v instanceof Double d
                && Double.isFinite(d)
                && Double.doubleToRawLongBits(d) != Double.doubleToRawLongBits(-0.0)) {
            return ctx.newNumber(d);
        }
        if (v instanceof EncodedValue e) {
            return decodeInGuest(e.encoded()); // from a worker: never Java objects here
        }
        byte[] binary = Transport.encodeBinary(v);
        if (binary != null) {
            return readBinary(binary);
        }
        return decodeInGuest(Transport.encode(v, where));
    }

    private JsValue decodeInGuest(Transport.Encoded enc) {
        try (JsValue json = ctx.newString(enc.json());
                JsValue side = sidecar(enc.sidecar())) {
            return checkedCall(template.decode, json, side);
        }
    }

    /** The guest value of the engine's binary format, read natively ({@code JS_ReadObject}). */
    JsValue readBinary(byte[] binary) {
        try (JsValue buffer = ctx.newArrayBuffer(binary);
                JsResult r = ctx.readObject(buffer)) {
            if (!r.isOk()) {
                throw new GuestFailure(errors.apply(r.error()));
            }
            return r.orThrow();
        }
    }

    /** A guest array of the sidecar's entries: ArrayBuffers for bytes, strings for strings. */
    JsValue sidecar(List<Object> parts) {
        JsValue arr = ctx.newArray();
        for (int i = 0; i < parts.size(); i++) {
            Object part = parts.get(i);
            try (JsValue v =
                    part instanceof String text
                            ? ctx.newString(text)
                            : ctx.newArrayBuffer((byte[]) part)) {
                ctx.setProperty(arr, String.valueOf(i), v);
            }
        }
        return arr;
    }

    List<Object> readSidecar(JsValue arr) {
        List<Object> out = new ArrayList<>();
        try (JsValue len = arr.get("length")) {
            int n = (int) len.asNumber();
            for (int i = 0; i < n; i++) {
                try (JsValue part = ctx.getProperty(arr, i)) {
                    out.add(
                            part.typeOf().equals("string")
                                    ? part.asString()
                                    : ctx.toByteArray(part));
                }
            }
        }
        return out;
    }

    /** Calls one of the sandbox's own guest functions; what it throws stops the run. */
    JsValue checkedCall(JsValue fn, JsValue... args) {
        try (JsResult r = ctx.call(fn, ctx.undefined(), args)) {
            if (!r.isOk()) {
                throw new GuestFailure(errors.apply(r.error()));
            }
            return r.orThrow();
        }
    }

    /**
     * Encodes a guest value with the codec (guest code: getters and proxies run under the run's
     * budget), checks its size against the output limit before copying it out, and decodes it. The
     * codec's own {@code TransportError} names the path of the value it refused.
     */
    Encoded encode(JsValue v, String root, boolean truncate) {
        Object fast = encodeBinary(v);
        if (fast != NOT_PLAIN) {
            return new Encoded(fast, false);
        }
        JsValue pair;
        // Without truncation the codec counts as it walks and stops once past the limit; a
        // truncated result needs the whole text to cut.
        try (JsValue rootName = ctx.newString(root);
                JsValue limit = truncate ? ctx.undefined() : ctx.newNumber(outputBytes);
                JsResult r = ctx.call(template.encode, ctx.undefined(), v, rootName, limit)) {
            if (!r.isOk()) {
                throw new GuestFailure(errors.apply(r.error()));
            }
            pair = r.orThrow();
        }
        backFromGuest.run();
        try (pair;
                JsValue json = ctx.getProperty(pair, 0)) {
            if (json.typeOf().equals("number")) {
                throw tooLarge(root, "at least " + (long) json.asNumber());
            }
            return measured(json, pair, root, truncate);
        }
    }

    /** The codec's JSON and sidecar: measured against the limit, then decoded (or cut). */
    private Encoded measured(JsValue json, JsValue pair, String root, boolean truncate) {
        try (JsValue side = ctx.getProperty(pair, 1);
                JsValue jsonLength = json.get("length");
                JsValue sideLength = side.get("length")) {
            long size = (long) jsonLength.asNumber();
            int parts = (int) sideLength.asNumber();
            for (int i = 0; i < parts; i++) {
                try (JsValue part = ctx.getProperty(side, i);
                        JsValue n =
                                part.get(
                                        part.typeOf().equals("string") ? "length" : "byteLength")) {
                    size += (long) n.asNumber();
                }
            }
            long max = outputBytes;
            if (size > max) {
                if (!truncate) {
                    throw tooLarge(root, String.valueOf(size));
                }
                try (JsValue n = ctx.newNumber(max);
                        JsValue cut = checkedCall(template.prefix, json, n)) {
                    return new Encoded(cut.asString(), true);
                }
            }
            return new Encoded(Transport.decode(json.asString(), readSidecar(side)), false);
        }
    }

    private GuestFailure tooLarge(String root, String size) {
        return new GuestFailure(
                RunError.of(
                        RunError.Kind.OUTPUT,
                        "OutputTooLarge",
                        root
                                + " is "
                                + size
                                + " bytes encoded (JSON characters plus binary bytes); the output"
                                + " limit (outputBytes) is "
                                + outputBytes));
    }

    /**
     * The binary path (docs/transport.md): the engine's native writer, read in Java, used only when
     * the result is provably what the codec's walk would return and fits the output limit;
     * otherwise {@link #NOT_PLAIN}, and the codec runs (it also names the path in every error).
     */
    private Object encodeBinary(JsValue v) {
        long max = outputBytes;
        Transport.Binary read;
        try (JsResult written = ctx.writeObject(v)) {
            if (!written.isOk()) {
                JsError err = written.error();
                if (err.isInterrupted()) {
                    throw new GuestFailure(errors.apply(err));
                }
                // A function, accessor, proxy, Map, ...: the codec decides. So does a writer out
                // of memory: an object repeated a million times is written a million times, and
                // the codec, which counts as it walks, tells a value too large to output.
                return NOT_PLAIN;
            }
            backFromGuest.run();
            JsValue buffer = written.value();
            // Checked before copying: the binary form is at most ~3x the codec's size.
            if (ctx.arrayBufferLength(buffer) > Transport.binaryBound(max)) {
                return NOT_PLAIN;
            }
            read = Transport.decodeBinary(ctx.toByteArray(buffer), max);
        }
        if (read == null) {
            return NOT_PLAIN; // not plain data, or near the limit: the codec measures exactly
        }
        if (read.plan().length > 0) {
            try (JsValue plan = ctx.newArrayBuffer(read.plan());
                    JsResult ok = ctx.call(template.protoCheck, ctx.undefined(), v, plan)) {
                if (!ok.isOk()) {
                    JsError err = ok.error();
                    if (err.isInterrupted() || err.isOutOfMemory()) {
                        throw new GuestFailure(errors.apply(err));
                    }
                    return NOT_PLAIN;
                }
                if (!ctx.toBoolean(ok.value())) {
                    return NOT_PLAIN;
                }
            }
        }
        return read.value();
    }

    /** The object-valued globals the request injected, read back after a successful run. */
    Map<String, Object> syncGlobals(RunRequest request) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (request.globals().isEmpty()) {
            return out;
        }
        try (JsValue global = ctx.global()) {
            for (Map.Entry<String, Object> g : request.globals().entrySet()) {
                if (isPrimitive(g.getValue()) || request.inputs().contains(g.getKey())) {
                    continue;
                }
                try (JsValue v = global.get(g.getKey())) {
                    out.put(g.getKey(), encode(v, g.getKey(), false).value());
                } catch (JsException e) {
                    throw new GuestFailure(errors.apply(e.error()));
                }
            }
        }
        return out;
    }

    private static boolean isPrimitive(Object v) {
        return v == null
                || v instanceof Boolean
                || v instanceof Number && !(v instanceof BigDecimal)
                || v instanceof String
                || v instanceof Character
                || v instanceof BigInteger
                || v == Undefined.INSTANCE;
    }
}
