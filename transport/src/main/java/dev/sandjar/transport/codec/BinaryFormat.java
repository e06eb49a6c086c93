package dev.sandjar.transport.codec;

import dev.sandjar.transport.JsMap;
import dev.sandjar.transport.Undefined;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The plain-data subset of QuickJS-ng's binary object format ({@code JS_WriteObject} / {@code
 * JS_ReadObject}, format version {@value #VERSION}, as the bundled engine writes it): null,
 * undefined, booleans, int32, float64, strings, arrays and plain objects. Anything else, and
 * anything whose meaning under the JSON codec is not provably the same, makes both directions
 * answer "not plain" so the caller takes the JSON codec (docs/transport.md). Stateless except for
 * the learned predefined atoms; thread-safe.
 */
final class BinaryFormat {
    /** The engine's format version byte; anything else is not read. */
    static final int VERSION = 0x17;

    private static final int NULL = 1;
    private static final int UNDEFINED = 2;
    private static final int FALSE = 3;
    private static final int TRUE = 4;
    private static final int INT32 = 5;
    private static final int FLOAT64 = 6;
    private static final int STRING = 7;
    private static final int OBJECT = 8;
    private static final int ARRAY = 9;

    /** Atom table entries: a predefined atom by number, or a string. */
    private static final int ATOM_PREDEFINED = 0;

    private static final int ATOM_STRING = 1;

    private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    /** A string's header is its length shifted left once, in 32 bits. */
    private static final int MAX_STRING_UNITS = 1 << 30;

    /**
     * Predefined atoms (names built into the engine, such as {@code name} or {@code length}) are
     * written by number. The numbers are learned from the engine itself ({@link #learnAtoms}); an
     * unknown one makes the value "not plain".
     */
    private static final Map<Integer, String> PREDEFINED = new ConcurrentHashMap<>();

    // Proto-check plan node kinds (codec.js protoCheck).
    private static final int PLAN_OBJECT = 0;
    private static final int PLAN_ARRAY = 1;
    private static final int PLAN_RECORDS = 2;

    private BinaryFormat() {}

    /** Thrown inside the reader and writer for "not plain"; never escapes this class. */
    private static final class NotPlain extends Exception {
        private static final long serialVersionUID = 1L;
        static final NotPlain INSTANCE = new NotPlain();

        private NotPlain() {
            super(null, null, false, false);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Learning predefined atoms.

    /**
     * Learns predefined atom numbers from the engine's encoding of {@code [names, object]}, where
     * {@code object} has the keys {@code names} in that order (codec.js {@code atomProbe}).
     */
    static void learnAtoms(byte[] bytes) {
        try {
            Reader r = new Reader(bytes, true, Long.MAX_VALUE);
            r.header();
            if (r.u8() != ARRAY || r.leb() != 2 || r.u8() != ARRAY) {
                throw NotPlain.INSTANCE;
            }
            int n = r.leb();
            String[] names = new String[n];
            for (int i = 0; i < n; i++) {
                if (r.u8() != STRING) {
                    throw NotPlain.INSTANCE;
                }
                names[i] = r.string();
            }
            if (r.u8() != OBJECT || r.leb() != n) {
                throw NotPlain.INSTANCE;
            }
            for (int i = 0; i < n; i++) {
                int ref = r.leb();
                if ((ref & 1) != 0) {
                    throw NotPlain.INSTANCE;
                }
                int entry = (ref >>> 1) - 1;
                if (entry < 0 || entry >= r.atomIds.length) {
                    throw NotPlain.INSTANCE;
                }
                if (r.atomIds[entry] >= 0) {
                    PREDEFINED.putIfAbsent(r.atomIds[entry], names[i]);
                }
                r.skipValue();
            }
        } catch (NotPlain | RuntimeException e) {
            // A probe the reader does not follow teaches nothing; values then take the JSON codec.
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reading (guest to host).

    /**
     * A read value, the upper bound of its size under the JSON codec (JSON characters plus sidecar
     * units: the output limit's measure), and the prototype-check plan for the guest.
     */
    record Read(Object value, long jsonSizeBound, int[] plan) {}

    /**
     * The value, or null when it is not plain data this reader proves equivalent or its JSON-codec
     * size bound passes {@code maxJsonSize}. The read stops as soon as the bound passes the limit,
     * so the Java objects built never stand for more than {@code maxJsonSize} of output.
     */
    static Read read(byte[] bytes, long maxJsonSize) {
        try {
            Reader r = new Reader(bytes, false, maxJsonSize);
            r.header();
            Object v = r.value(0);
            if (r.pos != bytes.length) {
                return null;
            }
            int[] plan = r.lastPlan == null ? new int[0] : r.lastPlan;
            return new Read(v, r.size, plan);
        } catch (NotPlain | RuntimeException e) {
            return null;
        }
    }

    private static final class Reader {
        final byte[] b;
        final boolean probing;
        final long maxSize;
        int pos;
        String[] atoms;
        int[] atomIds;
        long size;
        int[] lastPlan; // the plan segment of the value just read; null: nothing to check

        Reader(byte[] b, boolean probing, long maxSize) {
            this.b = b;
            this.probing = probing;
            this.maxSize = maxSize;
        }

        /** Adds to the size bound; past the limit the value is not worth building. */
        void grow(long n) throws NotPlain {
            size += n;
            if (size > maxSize) {
                throw NotPlain.INSTANCE;
            }
        }

        int u8() throws NotPlain {
            if (pos >= b.length) {
                throw NotPlain.INSTANCE;
            }
            return b[pos++] & 0xff;
        }

        int leb() throws NotPlain {
            long v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int x = u8();
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    if (v > 0xffffffffL) {
                        throw NotPlain.INSTANCE;
                    }
                    return (int) v;
                }
            }
            throw NotPlain.INSTANCE;
        }

        void header() throws NotPlain {
            if (u8() != VERSION) {
                throw NotPlain.INSTANCE;
            }
            int n = leb();
            if (n < 0 || n > b.length) {
                throw NotPlain.INSTANCE;
            }
            atoms = new String[n];
            atomIds = new int[n];
            for (int i = 0; i < n; i++) {
                int kind = u8();
                if (kind == ATOM_STRING) {
                    atoms[i] = string();
                    atomIds[i] = -1;
                } else if (kind == ATOM_PREDEFINED) {
                    int id = (u8() | u8() << 8 | u8() << 16 | u8() << 24);
                    atomIds[i] = id;
                    atoms[i] = PREDEFINED.get(id);
                    if (atoms[i] == null && !probing) {
                        throw NotPlain.INSTANCE;
                    }
                } else {
                    throw NotPlain.INSTANCE; // a symbol
                }
            }
        }

        String string() throws NotPlain {
            int h = leb();
            int len = h >>> 1;
            if ((h & 1) == 0) {
                if (len > b.length - pos) {
                    throw NotPlain.INSTANCE;
                }
                String s = new String(b, pos, len, java.nio.charset.StandardCharsets.ISO_8859_1);
                pos += len;
                return s;
            }
            if (len > (b.length - pos) / 2) {
                throw NotPlain.INSTANCE;
            }
            char[] cs = new char[len];
            for (int i = 0; i < len; i++) {
                cs[i] = (char) ((b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8);
                pos += 2;
            }
            return new String(cs);
        }

        double float64() throws NotPlain {
            if (b.length - pos < 8) {
                throw NotPlain.INSTANCE;
            }
            long bits = 0;
            for (int i = 7; i >= 0; i--) {
                bits = bits << 8 | (b[pos + i] & 0xff);
            }
            pos += 8;
            return Double.longBitsToDouble(bits);
        }

        String key() throws NotPlain {
            int ref = leb();
            if ((ref & 1) != 0) {
                throw NotPlain.INSTANCE; // an integer key: Object.keys would sort it first
            }
            int entry = (ref >>> 1) - 1;
            if (entry < 0 || entry >= atoms.length || atoms[entry] == null) {
                throw NotPlain.INSTANCE;
            }
            String k = atoms[entry];
            if (isArrayIndex(k)) {
                throw NotPlain.INSTANCE;
            }
            return k;
        }

        void skipValue() throws NotPlain {
            int tag = u8();
            switch (tag) {
                case NULL, UNDEFINED, FALSE, TRUE -> {}
                case INT32 -> leb();
                case FLOAT64 -> float64();
                case STRING -> string();
                default -> throw NotPlain.INSTANCE;
            }
        }

        /** One value at {@code depth} (the root is 0); sets {@link #lastPlan}. */
        Object value(int depth) throws NotPlain {
            lastPlan = null;
            int tag = u8();
            switch (tag) {
                case NULL:
                    grow(4);
                    return null;
                case UNDEFINED:
                    grow(15); // {"$sj":"undef"}
                    return Undefined.INSTANCE;
                case FALSE:
                    grow(5);
                    return Boolean.FALSE;
                case TRUE:
                    grow(4);
                    return Boolean.TRUE;
                case INT32:
                    {
                        int z = leb();
                        long v = (z >>> 1) ^ -(z & 1);
                        grow(Long.toString(v).length());
                        return v;
                    }
                case FLOAT64:
                    return number(float64());
                case STRING:
                    {
                        String s = string();
                        grow(stringSize(s));
                        return s;
                    }
                case OBJECT:
                    return object(depth);
                case ARRAY:
                    return array(depth);
                default:
                    throw NotPlain.INSTANCE;
            }
        }

        private Object number(double d) throws NotPlain {
            if (Double.isNaN(d)) {
                grow(23);
                return d;
            }
            if (Double.isInfinite(d)) {
                grow(d > 0 ? 28 : 29);
                return d;
            }
            if (d == 0 && Double.doubleToRawLongBits(d) != 0) {
                grow(22);
                return d;
            }
            if (d == Math.rint(d) && Math.abs(d) < 1e21) {
                grow(new BigDecimal(d).toPlainString().length());
                return Math.abs(d) <= MAX_SAFE_INTEGER ? (Object) (long) d : (Object) d;
            }
            grow(25); // the longest shortest-round-trip form a JS number prints as
            return d;
        }

        private Map<String, Object> object(int depth) throws NotPlain {
            if (depth > Transport.MAX_DEPTH) {
                throw NotPlain.INSTANCE;
            }
            int n = leb();
            if (n > b.length - pos) {
                throw NotPlain.INSTANCE;
            }
            // Sized for what the limit lets through, not for what the count claims.
            Map<String, Object> out = new LinkedHashMap<>(Math.min(Math.max(4, n * 2), 2048));
            grow(2 + Math.max(0, n - 1));
            IntList plan = null;
            int children = 0;
            for (int i = 0; i < n; i++) {
                String k = key();
                grow(inlineSize(k) + 1); // keys are never sidecar strings
                if (k.equals(Transport.MARK)) {
                    grow(18); // {"$sj":"obj","v":...}
                }
                out.put(k, value(depth + 1));
                if (lastPlan != null) {
                    if (plan == null) {
                        plan = new IntList();
                    }
                    plan.add(i);
                    plan.addAll(lastPlan);
                    children++;
                }
            }
            if (out.size() != n) {
                throw NotPlain.INSTANCE; // a repeated key: not what the engine writes
            }
            lastPlan = segment(PLAN_OBJECT, children, plan);
            return out;
        }

        private List<Object> array(int depth) throws NotPlain {
            if (depth > Transport.MAX_DEPTH) {
                throw NotPlain.INSTANCE;
            }
            int n = leb();
            if (n > b.length - pos) {
                throw NotPlain.INSTANCE;
            }
            List<Object> out = new ArrayList<>(Math.min(n, 1024));
            grow(2 + Math.max(0, n - 1));
            IntList plan = null;
            int children = 0;
            boolean records = n > 0;
            for (int i = 0; i < n; i++) {
                out.add(value(depth + 1));
                int[] p = lastPlan;
                records &= p != null && p.length == 2 && p[0] == PLAN_OBJECT && p[1] == 0;
                if (p != null) {
                    if (plan == null) {
                        plan = new IntList();
                    }
                    plan.add(i);
                    plan.addAll(p);
                    children++;
                }
            }
            if (records) {
                lastPlan = new int[] {PLAN_RECORDS, n};
            } else {
                lastPlan = children == 0 ? null : segment(PLAN_ARRAY, children, plan);
            }
            return out;
        }

        private static int[] segment(int kind, int children, IntList rest) {
            int[] seg = new int[2 + (rest == null ? 0 : rest.size)];
            seg[0] = kind;
            seg[1] = children;
            if (rest != null) {
                System.arraycopy(rest.a, 0, seg, 2, rest.size);
            }
            return seg;
        }
    }

    private static final class IntList {
        int[] a = new int[8];
        int size;

        void add(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        void addAll(int[] vs) {
            if (size + vs.length > a.length) {
                a = Arrays.copyOf(a, Math.max(a.length * 2, size + vs.length));
            }
            System.arraycopy(vs, 0, a, size, vs.length);
            size += vs.length;
        }
    }

    /** A canonical array index ("0" to "4294967294"): Object.keys lists those first. */
    static boolean isArrayIndex(String k) {
        int n = k.length();
        if (n == 0 || n > 10 || (n > 1 && k.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = k.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return Long.parseLong(k) <= 4294967294L;
    }

    /** An upper bound of the string value's size under the JSON codec. */
    private static long stringSize(String s) {
        int n = s.length();
        if (n > Transport.LONG_STRING) {
            return n + 32L; // {"$sj":"str","i":N} plus the sidecar entry
        }
        return inlineSize(s);
    }

    /** The size of the string as a JSON string literal, escapes included. */
    private static long inlineSize(String s) {
        int n = s.length();
        long size = 2;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                size += 2;
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                size += 6;
            } else {
                size += 1;
            }
        }
        return size;
    }

    // ---------------------------------------------------------------------------------------
    // Writing (host to guest).

    /** The value in the engine's format, or null when it needs the JSON codec. */
    static byte[] write(Object value) {
        Writer w = new Writer();
        try {
            w.value(value, 0);
        } catch (NotPlain e) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(w.body.size() + 64);
        out.write(VERSION);
        leb(out, w.atoms.size());
        for (String k : w.atoms.keySet()) {
            out.write(ATOM_STRING);
            string(out, k);
        }
        out.write(w.body.toByteArray(), 0, w.body.size());
        return out.toByteArray();
    }

    private static final class Writer {
        final Outbuf body = new Outbuf();
        final Map<String, Integer> atoms = new LinkedHashMap<>();
        final Set<Object> stack = Collections.newSetFromMap(new IdentityHashMap<>());

        void value(Object v, int depth) throws NotPlain {
            if (v == null) {
                body.write(NULL);
            } else if (v == Undefined.INSTANCE) {
                body.write(UNDEFINED);
            } else if (v instanceof Boolean bool) {
                body.write(bool ? TRUE : FALSE);
            } else if (v instanceof String s) {
                body.write(STRING);
                string(body, fits(s));
            } else if (v instanceof Character c) {
                body.write(STRING);
                string(body, String.valueOf(c));
            } else if (v instanceof Long
                    || v instanceof Integer
                    || v instanceof Short
                    || v instanceof Byte) {
                long l = ((Number) v).longValue();
                if (Math.abs(l) > MAX_SAFE_INTEGER) {
                    throw NotPlain.INSTANCE; // the JSON codec names the path in its error
                }
                if (l == (int) l) {
                    body.write(INT32);
                    int i = (int) l;
                    leb(body, (i << 1) ^ (i >> 31));
                } else {
                    float64((double) l);
                }
            } else if (v instanceof Double || v instanceof Float) {
                float64(((Number) v).doubleValue());
            } else if (v instanceof Map<?, ?> m && !(v instanceof JsMap)) {
                container(v, depth);
                body.write(OBJECT);
                leb(body, m.size());
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!(e.getKey() instanceof String k) || isArrayIndex(fits(k))) {
                        // Index keys are numbers inside the engine; a string atom would not match.
                        throw NotPlain.INSTANCE;
                    }
                    Integer ref = atoms.get(k);
                    if (ref == null) {
                        ref = atoms.size() + 1;
                        atoms.put(k, ref);
                    }
                    leb(body, ref << 1);
                    value(e.getValue(), depth + 1);
                }
                stack.remove(v);
            } else if ((v instanceof Collection<?> && !(v instanceof Set<?>))
                    || v instanceof Object[]) {
                if (v instanceof Object[] a && Arrays.asList(a).contains(null)) {
                    throw NotPlain.INSTANCE; // the JSON codec's List.of refuses null elements
                }
                Collection<?> c = v instanceof Object[] a ? Arrays.asList(a) : (Collection<?>) v;
                container(v, depth);
                body.write(ARRAY);
                leb(body, c.size());
                int n = 0;
                for (Object item : c) {
                    value(item, depth + 1);
                    n++;
                }
                if (n != c.size()) {
                    throw NotPlain.INSTANCE; // a collection that changed while we read it
                }
                stack.remove(v);
            } else {
                throw NotPlain.INSTANCE;
            }
        }

        /** The format's string header holds a length under 2^30 UTF-16 units. */
        private static String fits(String s) throws NotPlain {
            if (s.length() >= MAX_STRING_UNITS) {
                throw NotPlain.INSTANCE;
            }
            return s;
        }

        private void container(Object v, int depth) throws NotPlain {
            if (depth >= Transport.MAX_DEPTH || !stack.add(v)) {
                throw NotPlain.INSTANCE; // the JSON codec names the path in its error
            }
        }

        private void float64(double d) {
            body.write(FLOAT64);
            long bits = Double.doubleToRawLongBits(d);
            for (int i = 0; i < 8; i++) {
                body.write((int) (bits >>> (8 * i)));
            }
        }
    }

    /** A ByteArrayOutputStream without synchronisation or checked exceptions. */
    private static final class Outbuf extends ByteArrayOutputStream {
        Outbuf() {
            super(256);
        }

        @Override
        public void write(int b) {
            if (count == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            buf[count++] = (byte) b;
        }
    }

    private static void leb(ByteArrayOutputStream out, int v) {
        long u = v & 0xffffffffL;
        while (u >= 0x80) {
            out.write((int) (u & 0x7f) | 0x80);
            u >>>= 7;
        }
        out.write((int) u);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        int n = s.length();
        boolean wide = false;
        for (int i = 0; i < n && !wide; i++) {
            wide = s.charAt(i) > 0xff;
        }
        leb(out, n << 1 | (wide ? 1 : 0));
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            out.write(c);
            if (wide) {
                out.write(c >>> 8);
            }
        }
    }
}
