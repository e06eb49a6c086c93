package dev.sandjar.quickjs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A QuickJS context: a global object and realm inside a {@link JsRuntime}. Evaluates code, makes
 * and reads values, calls functions. Every value it returns is an owned {@link JsValue}; closing
 * the context frees any still open. Handles of another context are refused. Engine thread only.
 */
public final class JsContext implements AutoCloseable {
    private static final int EVAL_TYPE_GLOBAL = 0;
    private static final int EVAL_TYPE_MODULE = 1;
    private static final int EVAL_FLAG_STRICT = 1 << 3;
    private static final int EVAL_FLAG_COMPILE_ONLY = 1 << 5;

    /** Promise states, as {@code JS_PromiseState} reports them. */
    public enum PromiseState {
        PENDING,
        FULFILLED,
        REJECTED,
        NOT_A_PROMISE
    }

    /** A new promise with its resolving functions; closing it closes all three. */
    public record PromiseCapability(JsValue promise, JsValue resolve, JsValue reject)
            implements AutoCloseable {
        @Override
        public void close() {
            for (JsValue v : List.of(promise, resolve, reject)) {
                if (v.isAlive()) {
                    v.close();
                }
            }
        }
    }

    private final JsRuntime runtime;
    private final QuickJsEngine engine;
    private final Ffi ffi;
    private int ptr;
    private final int originalPtr;
    private final Set<JsValue> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final JsValue undefined;
    private final JsValue nullValue;
    private final JsValue trueValue;
    private final JsValue falseValue;
    // Captured before any guest code runs, so a guest cannot intercept host string transfers.
    private JsValue jsonParse;
    private JsValue jsonStringify;
    private JsValue lengthKey;
    private JsValue objectKeys;
    private JsValue bigIntFn;
    private final List<JsValue> internals = new ArrayList<>();

    JsContext(JsRuntime runtime, int ptr) {
        this.runtime = runtime;
        this.engine = runtime.engine();
        this.ffi = engine.ffi();
        this.ptr = ptr;
        this.originalPtr = ptr;
        engine.contexts.put(ptr, this);
        undefined = JsValue.constant(this, ffi.call(ffi.getUndefined));
        nullValue = JsValue.constant(this, ffi.call(ffi.getNull));
        trueValue = JsValue.constant(this, ffi.call(ffi.getTrue));
        falseValue = JsValue.constant(this, ffi.call(ffi.getFalse));
        lengthKey = internal(plainString("length"));
        try (JsValue global = global();
                JsValue json = getProperty(global, "JSON");
                JsValue object = getProperty(global, "Object")) {
            if (json.typeOf().equals("object")) {
                jsonParse = internal(getProperty(json, "parse"));
                jsonStringify = internal(getProperty(json, "stringify"));
            }
            objectKeys = internal(getProperty(object, "keys"));
            bigIntFn = internal(getProperty(global, "BigInt"));
        }
    }

    /** Moves a handle out of the user-visible set: freed when the context closes. */
    private JsValue internal(JsValue v) {
        live.remove(v);
        internals.add(v);
        return v;
    }

    /** Throws a plain error through a context the host has already closed (raw pointers only). */
    int rawThrow(int ctx) {
        int err = ffi.call(ffi.newError, ctx);
        int thrown = ffi.call(ffi.throwValue, ctx, err);
        ffi.callVoid(ffi.freeValue, ctx, err);
        return thrown;
    }

    QuickJsEngine engine() {
        return engine;
    }

    public JsRuntime runtime() {
        return runtime;
    }

    public boolean isAlive() {
        return ptr != 0;
    }

    /** The pointer this context had, also after close (for unregistering). */
    int rawPtr() {
        return originalPtr;
    }

    int ptr() {
        engine.checkThread();
        if (ptr == 0) {
            throw new IllegalStateException("JsContext used after close");
        }
        return ptr;
    }

    void track(JsValue v) {
        live.add(v);
    }

    void release(JsValue v) {
        int p = v.ptr();
        live.remove(v);
        v.invalidate();
        ffi.callVoid(ffi.freeValue, ptr(), p);
    }

    /** The owned handles open now and their pointers, for an engine snapshot. */
    Map<JsValue, Integer> saveHandles() {
        Map<JsValue, Integer> out = new IdentityHashMap<>();
        for (JsValue v : live) {
            out.put(v, v.rawPtr());
        }
        return out;
    }

    /**
     * After the engine's memory was restored: the context is alive again with exactly the handles
     * it had at the snapshot; handles made since are dead (their memory is gone).
     */
    void restoreHandles(Map<JsValue, Integer> saved) {
        for (JsValue v : live) {
            if (!saved.containsKey(v)) {
                v.invalidate();
            }
        }
        live.clear();
        saved.forEach(
                (v, p) -> {
                    v.revive(p);
                    live.add(v);
                });
        ptr = originalPtr;
    }

    /** After a restore from a snapshot this context was not part of: it is gone. */
    void forgetAfterRestore() {
        for (JsValue v : live) {
            v.invalidate();
        }
        live.clear();
        ptr = 0;
    }

    /** Number of owned handles still open in this context (for leak checks). */
    public int openHandles() {
        return live.size();
    }

    private int own(JsValue v) {
        if (v.context() != this) {
            throw new IllegalArgumentException("JsValue belongs to another context");
        }
        return v.ptr();
    }

    private JsValue wrap(int valuePtr) {
        if (valuePtr == 0) {
            throw new JsMemoryException("the engine could not allocate a value");
        }
        return JsValue.owned(this, valuePtr);
    }

    /** Takes a host function's return value: an owned handle is handed over, others are copied. */
    int consume(JsValue v) {
        int p = own(v);
        if (v.kind() == JsValue.Kind.OWNED) {
            live.remove(v);
            v.invalidate();
            return p;
        }
        return ffi.call(ffi.dupValue, ptr(), p);
    }

    /** Throws a new error in the guest; returns the owned exception marker for C to return. */
    int throwError(String name, String message) {
        return throwError(name, message, Map.of());
    }

    int throwError(String name, String message, Map<String, String> properties) {
        try (JsValue err = newError(name, message)) {
            for (var p : properties.entrySet()) {
                try (JsValue v = newString(p.getValue())) {
                    setProperty(err, p.getKey(), v);
                }
            }
            return ffi.call(ffi.throwValue, ptr(), err.ptr());
        }
    }

    // ---------------------------------------------------------------------------------------
    // Evaluation.

    /** Evaluates a classic script; the result is its completion value. */
    public JsResult evalScript(String code, String filename) {
        return eval(code, filename, EVAL_TYPE_GLOBAL);
    }

    /**
     * Evaluates an ES module; the result is its namespace object, or a promise of it when the
     * module awaits at top level (drive it with {@link JsRuntime#executePendingJobs(int)}).
     */
    public JsResult evalModule(String code, String moduleName) {
        return eval(code, moduleName, EVAL_TYPE_MODULE | EVAL_FLAG_STRICT);
    }

    /**
     * Evaluates {@code code} as a script when it parses as one, else as an ES module (so code with
     * static {@code import}/{@code export} or top-level {@code await} runs as a module). The result
     * says which.
     */
    public Evaluated evalDetect(String code, String filename) {
        boolean script;
        byte[] bytes = code.getBytes(StandardCharsets.UTF_8);
        int src = ffi.copyIn(bytes);
        int name = ffi.cString(filename);
        try (JsResult compiled =
                result(
                        ffi.call(
                                ffi.eval,
                                ptr(),
                                src,
                                bytes.length,
                                name,
                                0,
                                EVAL_TYPE_GLOBAL | EVAL_FLAG_COMPILE_ONLY))) {
            script = compiled.isOk();
        } finally {
            ffi.free(src);
            ffi.free(name);
        }
        return new Evaluated(
                script ? evalScript(code, filename) : evalModule(code, filename), !script);
    }

    /** The outcome of {@link #evalDetect}: the result and whether the code ran as a module. */
    public record Evaluated(JsResult result, boolean module) {}

    private JsResult eval(String code, String filename, int flags) {
        int ctx = ptr();
        byte[] bytes = code.getBytes(StandardCharsets.UTF_8);
        int src = ffi.copyIn(bytes);
        int name = ffi.cString(filename);
        try {
            return result(ffi.call(ffi.eval, ctx, src, bytes.length, name, 0, flags));
        } finally {
            ffi.free(src);
            ffi.free(name);
        }
    }

    private JsResult result(int valuePtr) {
        JsValue v = wrap(valuePtr);
        int errPtr = ffi.call(ffi.resolveException, ptr(), v.ptr());
        if (errPtr == 0) {
            return JsResult.success(v);
        }
        v.close();
        JsValue err = wrap(errPtr);
        return JsResult.failure(err, errorOf(err));
    }

    /** Reads a thrown value as name, message and stack. */
    public JsError errorOf(JsValue thrown) {
        String type = typeOf(thrown);
        if (!type.equals("object") || isNull(thrown)) {
            return new JsError(type, toJavaString(thrown), "");
        }
        String name = stringProperty(thrown, "name");
        String message = stringProperty(thrown, "message");
        String stack = stringProperty(thrown, "stack");
        if (name.isEmpty() && message.isEmpty()) {
            return new JsError("object", toJavaString(thrown), stack);
        }
        return new JsError(name.isEmpty() ? "Error" : name, message, stack);
    }

    private String stringProperty(JsValue obj, String key) {
        try (JsValue v = getProperty(obj, key)) {
            return isUndefined(v) || isNull(v) ? "" : toJavaString(v);
        } catch (RuntimeException e) {
            return "";
        }
    }

    // ---------------------------------------------------------------------------------------
    // Values.

    public JsValue undefined() {
        ptr();
        return undefined;
    }

    public JsValue nullValue() {
        ptr();
        return nullValue;
    }

    public JsValue bool(boolean b) {
        ptr();
        return b ? trueValue : falseValue;
    }

    public JsValue global() {
        return wrap(ffi.call(ffi.getGlobalObject, ptr()));
    }

    public JsValue newNumber(double d) {
        return wrap(ffi.call(ffi.newFloat64, ptr(), Double.doubleToRawLongBits(d)));
    }

    public JsValue newObject() {
        return wrap(ffi.call(ffi.newObject, ptr()));
    }

    public JsValue newObject(JsValue prototype) {
        return wrap(ffi.call(ffi.newObjectProto, ptr(), own(prototype)));
    }

    public JsValue newArray() {
        return wrap(ffi.call(ffi.newArray, ptr()));
    }

    /**
     * A guest string with exactly these UTF-16 units, embedded NUL and lone surrogates included.
     */
    public JsValue newString(String s) {
        if (!needsEscaping(s)) {
            return plainString(s);
        }
        if (jsonParse == null) {
            throw new IllegalArgumentException(
                    "strings with NUL or lone surrogates need the JSON intrinsic in this context");
        }
        try (JsValue literal = plainString(jsonLiteral(s))) {
            return call(jsonParse, undefined, literal).orThrow();
        }
    }

    private JsValue plainString(String s) {
        int c = ffi.cString(s);
        try {
            return wrap(ffi.call(ffi.newString, ptr(), c));
        } finally {
            ffi.free(c);
        }
    }

    private static boolean needsEscaping(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return true;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    static String jsonLiteral(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** A new symbol; {@code global} makes it {@code Symbol.for(description)}. */
    public JsValue newSymbol(String description, boolean global) {
        int ctx = ptr();
        int d = ffi.cString(description);
        try {
            return wrap(ffi.call(ffi.newSymbol, ctx, d, global ? 1 : 0));
        } finally {
            ffi.free(d);
        }
    }

    /** A guest {@code BigInt} with exactly this value (made by the context's own BigInt). */
    public JsValue newBigInt(java.math.BigInteger value) {
        if (!typeOf(bigIntFn).equals("function")) {
            throw new IllegalStateException("this context has no BigInt intrinsic");
        }
        try (JsValue digits = newString(value.toString())) {
            return call(bigIntFn, undefined, digits).orThrow();
        }
    }

    /** A guest {@code ArrayBuffer} holding a copy of {@code bytes}, copied straight into memory. */
    public JsValue newArrayBuffer(byte[] bytes) {
        int ctx = ptr();
        int buf = ffi.malloc(Math.max(bytes.length, 1));
        ffi.memory.write(buf, bytes, 0, bytes.length);
        int v = ffi.call(ffi.newArrayBuffer, ctx, buf, bytes.length);
        if (v == 0) {
            ffi.free(buf);
        }
        return wrap(v); // the ArrayBuffer owns buf from here on
    }

    /**
     * {@code JS_WriteObject(value, JS_WRITE_OBJ_REFERENCE)}: the value in QuickJS's binary object
     * format, as a new {@code ArrayBuffer}. Native code: it fails on accessor properties of
     * objects, proxies, functions and other classes it does not know, but reads array elements with
     * an ordinary get (an element getter runs). The format is QuickJS-version specific.
     */
    public JsResult writeObject(JsValue value) {
        return result(ffi.call(ffi.writeObject, ptr(), own(value)));
    }

    /** {@code JS_ReadObject} of an {@code ArrayBuffer} that {@link #writeObject} would write. */
    public JsResult readObject(JsValue arrayBuffer) {
        return result(ffi.call(ffi.readObject, ptr(), own(arrayBuffer)));
    }

    /** A new {@code Error} (or subclass by name) with the given message. */
    public JsValue newError(String name, String message) {
        JsValue err = wrap(ffi.call(ffi.newError, ptr()));
        try (JsValue m = newString(message)) {
            setProperty(err, "message", m);
        }
        if (!name.equals("Error")) {
            try (JsValue n = newString(name)) {
                setProperty(err, "name", n);
            }
        }
        return err;
    }

    /** A guest function that calls {@code fn} on the engine thread. */
    public JsValue newFunction(String name, HostFunction fn) {
        int ctx = ptr();
        int id = engine.hostRefs.add(this, fn);
        int n = ffi.cString(name);
        try {
            return wrap(ffi.call(ffi.newFunction, ctx, n, 0, 0, id));
        } catch (RuntimeException e) {
            engine.hostRefs.free(id);
            throw e;
        } finally {
            ffi.free(n);
        }
    }

    public PromiseCapability newPromise() {
        int ctx = ptr();
        int out = ffi.malloc(8);
        try {
            JsValue promise = wrap(ffi.call(ffi.newPromiseCapability, ctx, out));
            JsValue resolve = wrap(ffi.readI32(out));
            JsValue reject = wrap(ffi.readI32(out + 4));
            return new PromiseCapability(promise, resolve, reject);
        } finally {
            ffi.free(out);
        }
    }

    public PromiseState promiseState(JsValue promise) {
        int s = ffi.call(ffi.promiseState, ptr(), own(promise));
        return switch (s) {
            case 0 -> PromiseState.PENDING;
            case 1 -> PromiseState.FULFILLED;
            case 2 -> PromiseState.REJECTED;
            default -> PromiseState.NOT_A_PROMISE;
        };
    }

    /** The fulfilled value or rejection reason of a settled promise. */
    public JsValue promiseResult(JsValue promise) {
        return wrap(ffi.call(ffi.promiseResult, ptr(), own(promise)));
    }

    public JsValue dup(JsValue v) {
        return wrap(ffi.call(ffi.dupValue, ptr(), own(v)));
    }

    // ---------------------------------------------------------------------------------------
    // Reading values.

    public String typeOf(JsValue v) {
        int s = ffi.call(ffi.typeOf, ptr(), own(v));
        try {
            return ffi.readCString(s);
        } finally {
            ffi.free(s);
        }
    }

    private long bits(int valuePtr) {
        return ffi.readI64(valuePtr);
    }

    public boolean isUndefined(JsValue v) {
        return bits(own(v)) == bits(undefined.ptr());
    }

    public boolean isNull(JsValue v) {
        return bits(own(v)) == bits(nullValue.ptr());
    }

    /** JavaScript truthiness of a boolean; other values convert as {@code Boolean(v)} would not. */
    public boolean toBoolean(JsValue v) {
        long b = bits(own(v));
        if (b == bits(trueValue.ptr())) {
            return true;
        }
        if (b == bits(falseValue.ptr())) {
            return false;
        }
        throw new IllegalArgumentException("value is a " + typeOf(v) + ", not a boolean");
    }

    /** {@code Number(v)} for numbers; NaN when the value does not convert. */
    public double toNumber(JsValue v) {
        return Double.longBitsToDouble(ffi.getFloat64.apply(ptr(), own(v))[0]);
    }

    /** {@code String(v)}, exact: embedded NUL and lone surrogates survive. */
    public String toJavaString(JsValue v) {
        int ctx = ptr();
        int p = own(v);
        int c = ffi.call(ffi.getString, ctx, p);
        if (c == 0) {
            throw new IllegalArgumentException(
                    "value of type " + typeOf(v) + " has no string form");
        }
        String fast;
        try {
            fast = ffi.readCString(c);
        } finally {
            ffi.callVoid(ffi.freeCString, ctx, c);
        }
        if (!typeOf(v).equals("string") || jsonStringify == null) {
            return fast;
        }
        // C strings stop at NUL and turn a lone surrogate into U+FFFD; the UTF-16 length and the
        // absence of U+FFFD tell us the fast read was exact.
        if (fast.indexOf('\uFFFD') < 0) {
            try (JsValue len = getPropertyByKey(v, lengthKey)) {
                if ((int) toNumber(len) == fast.length()) {
                    return fast;
                }
            }
        }
        try (JsValue json = call(jsonStringify, undefined, v).orThrow()) {
            int jc = ffi.call(ffi.getString, ctx, json.ptr());
            try {
                return JsonString.decode(ffi.readCString(jc));
            } finally {
                ffi.callVoid(ffi.freeCString, ctx, jc);
            }
        }
    }

    /** An {@code ArrayBuffer}'s length in bytes, without copying it. */
    public int arrayBufferLength(JsValue arrayBuffer) {
        return ffi.call(ffi.getArrayBufferLength, ptr(), own(arrayBuffer));
    }

    /** A copy of an {@code ArrayBuffer}'s bytes, read straight from guest memory. */
    public byte[] toByteArray(JsValue arrayBuffer) {
        int ctx = ptr();
        int p = own(arrayBuffer);
        int len = ffi.call(ffi.getArrayBufferLength, ctx, p);
        int buf = ffi.call(ffi.getArrayBuffer, ctx, p);
        if (buf == 0) {
            // A real ArrayBuffer, even an empty one, always yields a buffer (malloc(0) is not 0).
            throw new IllegalArgumentException(
                    "value is not an ArrayBuffer (a typed array's bytes are in its .buffer)");
        }
        try {
            return ffi.memory.readBytes(buf, len);
        } finally {
            ffi.free(buf);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Properties and calls.

    public JsValue getProperty(JsValue obj, String key) {
        try (JsValue k = newString(key)) {
            return getPropertyByKey(obj, k);
        }
    }

    /** {@code obj[index]}; a throwing getter surfaces as {@link JsException}. */
    public JsValue getProperty(JsValue obj, int index) {
        return checked(ffi.call(ffi.getPropNumber, ptr(), own(obj), index));
    }

    /** {@code obj[key]} for any key value; a throwing getter surfaces as {@link JsException}. */
    public JsValue getPropertyByKey(JsValue obj, JsValue key) {
        return checked(ffi.call(ffi.getProp, ptr(), own(obj), own(key)));
    }

    private JsValue checked(int valuePtr) {
        try (JsResult r = result(valuePtr)) {
            if (!r.isOk()) {
                throw new JsException(r.error());
            }
            return dup(r.value());
        }
    }

    /**
     * {@code JSON.stringify(value)} with the context's original {@code JSON}, captured before any
     * guest code ran; null when the result is {@code undefined}.
     */
    public String toJson(JsValue value) {
        if (jsonStringify == null) {
            throw new IllegalStateException("this context has no JSON intrinsic");
        }
        try (JsValue json = call(jsonStringify, undefined, value).orThrow()) {
            return isUndefined(json) ? null : toJavaString(json);
        }
    }

    public void setProperty(JsValue obj, String key, JsValue value) {
        try (JsValue k = newString(key)) {
            setPropertyByKey(obj, k, value);
        }
    }

    public void setPropertyByKey(JsValue obj, JsValue key, JsValue value) {
        ffi.callVoid(ffi.setProp, ptr(), own(obj), own(key), own(value));
    }

    /**
     * Defines a data property that is not writable (QuickJS's {@code QTS_DefineProp} has no
     * writable flag), with the given configurability and enumerability.
     */
    public void defineProperty(
            JsValue obj, String key, JsValue value, boolean configurable, boolean enumerable) {
        define(obj, key, value, undefined, undefined, configurable, enumerable, true);
    }

    /** Defines an accessor property; pass {@link #undefined()} for a missing getter or setter. */
    public void defineAccessor(
            JsValue obj,
            String key,
            JsValue getter,
            JsValue setter,
            boolean configurable,
            boolean enumerable) {
        define(obj, key, undefined, getter, setter, configurable, enumerable, false);
    }

    private void define(
            JsValue obj,
            String key,
            JsValue value,
            JsValue getter,
            JsValue setter,
            boolean configurable,
            boolean enumerable,
            boolean hasValue) {
        try (JsValue k = newString(key)) {
            ffi.callVoid(
                    ffi.defineProp,
                    ptr(),
                    own(obj),
                    k.ptr(),
                    own(value),
                    own(getter),
                    own(setter),
                    configurable ? 1 : 0,
                    enumerable ? 1 : 0,
                    hasValue ? 1 : 0);
        }
    }

    /** Calls {@code fn} with {@code thisArg} and {@code args}; guest errors come back as values. */
    public JsResult call(JsValue fn, JsValue thisArg, JsValue... args) {
        int ctx = ptr();
        int argv = ffi.malloc(Math.max(4, 4 * args.length));
        try {
            for (int i = 0; i < args.length; i++) {
                ffi.memory.writeI32(argv + 4 * i, own(args[i]));
            }
            return result(ffi.call(ffi.call, ctx, own(fn), own(thisArg), args.length, argv));
        } finally {
            ffi.free(argv);
        }
    }

    /** The property names {@code Object.keys} would list, read through the guest. */
    public List<String> keys(JsValue obj) {
        List<String> out = new ArrayList<>();
        try (JsValue arr = call(objectKeys, undefined, obj).orThrow();
                JsValue len = getPropertyByKey(arr, lengthKey)) {
            int n = (int) toNumber(len);
            for (int i = 0; i < n; i++) {
                try (JsValue k = getProperty(arr, i)) {
                    out.add(toJavaString(k));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (ptr == 0) {
            throw new IllegalStateException("JsContext closed twice");
        }
        engine.checkClosable("context");
        for (JsValue v : List.copyOf(live)) {
            release(v);
        }
        for (JsValue v : internals) {
            ffi.callVoid(ffi.freeValue, ptr, v.ptr());
            v.invalidate();
        }
        internals.clear();
        // Stays registered until its runtime closes: jobs queued in it may still call the host.
        ffi.callVoid(ffi.freeContext, ptr);
        runtime.forget(this);
        ptr = 0;
    }
}
