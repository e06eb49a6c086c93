package dev.sandjar.quickjs.internal;

import com.dylibso.chicory.runtime.GlobalInstance;
import com.dylibso.chicory.wasm.types.MutabilityType;
import com.dylibso.chicory.wasm.types.Value;
import java.lang.reflect.Field;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * Whether the engine memory's typed loads and stores ({@link BlockMemory}: {@code TrackedMemory}'s
 * fast paths and the accesses the outlining pass writes into the generated code) go through {@code
 * sun.misc.Unsafe} on its block arrays (one intrinsic per access) or through little-endian
 * byte-array {@code VarHandle}s (the portable path, whose force-inlined chain costs more of C2's
 * inlining budget per access). Both read and write the same bytes; the choice is made once per JVM,
 * when the class loads.
 *
 * <p>{@code Unsafe} is used when all of these hold:
 *
 * <ul>
 *   <li>the system property {@value #PROPERTY} is unset, {@code auto} or {@code unsafe} ({@code
 *       varhandle} forces the portable path, for A/B runs or a JVM where {@code Unsafe} is
 *       unwelcome);
 *   <li>the platform is little-endian and one whose plain loads may be unaligned (x86-64, AArch64),
 *       since wasm addresses are;
 *   <li>on JDK 24 and later, the JVM was started with {@code --sun-misc-unsafe-memory-access=allow}
 *       (or {@code -Dsun.misc.unsafe.memory.access=allow}): without it the JDK prints a warning on
 *       first use (JEP 498) or refuses, so the portable path is taken instead of either;
 *   <li>{@code sun.misc.Unsafe.theUnsafe} can be read (the {@code jdk.unsupported} module).
 * </ul>
 *
 * <p>{@code unsafe} asks for it; when a condition fails the portable path is still taken and the
 * reason logged, never an unsafe access on a platform that cannot make it. When the only thing
 * missing is JDK 24+'s {@link #ALLOW_FLAG} ({@link #ALLOW_FLAG_MISSING}), one warning says so,
 * since guest code then runs 1.2-1.4x slower (docs/jvm-flags.md); {@code varhandle} chooses the
 * portable path without it.
 *
 * <p>Public because the generated engine class reads {@link #ENABLED}, {@link #UNSAFE} and {@link
 * #BYTE_ARRAY_BASE} (the outlining pass's {@code InlineAccesses} names them); its package is
 * exported to no module.
 */
public final class RawAccess {
    /** The system property that chooses the path: {@code auto} (default), unsafe, varhandle. */
    public static final String PROPERTY = "sandjar.memory.access";

    /**
     * The JVM flag with which JDK 24 and later let {@code Unsafe}'s memory methods run without a
     * warning: the service's choice, since it lets every library in the JVM use them.
     */
    public static final String ALLOW_FLAG = "--sun-misc-unsafe-memory-access=allow";

    /**
     * Whether this JVM is on the portable path for want of {@link #ALLOW_FLAG}: JDK 24 or later
     * started without it, with {@value #PROPERTY} unset, {@code auto} or {@code unsafe}, on a
     * little-endian x86-64 or AArch64 (whether {@code Unsafe} itself could then be read is not
     * tried).
     */
    public static final boolean ALLOW_FLAG_MISSING;

    /** {@code Unsafe}, or null when the portable path is taken. */
    public static final sun.misc.Unsafe UNSAFE;

    /** Whether the typed accesses use {@link #UNSAFE}. */
    public static final boolean ENABLED;

    /** The offset of a {@code byte[]}'s first element, when {@link #ENABLED}; else 0. */
    public static final long BYTE_ARRAY_BASE;

    /** Why the portable path was taken, or null when it was not. */
    public static final String REASON;

    /**
     * The offset of {@code Thread}'s {@code interrupted} field, which {@code
     * Thread.isInterrupted()} returns, when {@link #ENABLED} and the field is there (JDK 14 and
     * later); else -1. The generated code's interruption checks read it with one volatile load
     * instead of calling Chicory's {@code checkInterruption()}, which C2 cannot inline into the big
     * generated methods (the outlining pass's {@code InlineOpcodes}); the call stays their slow
     * path.
     */
    public static final long THREAD_INTERRUPTED;

    /** Whether {@link #THREAD_INTERRUPTED} is the field's offset. */
    public static final boolean INTERRUPTED_FIELD;

    /**
     * The offset of Chicory's {@code GlobalInstance.valueLow}, which its {@code getValue()} and
     * {@code setValue(long)} read and write, when {@link #ENABLED} and the field behaves so
     * (checked on an instance when the class loads); else -1. The generated code's reads and writes
     * of global 0 use it directly: C2 does not inline the getter into the big generated methods.
     */
    public static final long GLOBAL_VALUE;

    /** Whether {@link #GLOBAL_VALUE} is the field's offset. */
    public static final boolean GLOBAL_FIELD;

    static {
        String reason = reasonAgainst();
        int feature = Runtime.version().feature();
        ALLOW_FLAG_MISSING =
                reason == null
                        && allowFlagMissing(
                                feature, System.getProperty("sun.misc.unsafe.memory.access"));
        if (ALLOW_FLAG_MISSING) {
            reason = "JDK " + feature + " without " + ALLOW_FLAG;
        }
        sun.misc.Unsafe unsafe = null;
        if (reason == null) {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                unsafe = (sun.misc.Unsafe) f.get(null);
                if (unsafe.arrayIndexScale(byte[].class) != 1) {
                    reason = "byte[] elements are not one byte apart";
                    unsafe = null;
                }
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                reason = "sun.misc.Unsafe is not available: " + e;
            }
        }
        UNSAFE = unsafe;
        ENABLED = unsafe != null;
        BYTE_ARRAY_BASE = unsafe != null ? unsafe.arrayBaseOffset(byte[].class) : 0;
        REASON = reason;
        THREAD_INTERRUPTED = unsafe != null ? interruptedOffset(unsafe) : -1;
        INTERRUPTED_FIELD = THREAD_INTERRUPTED >= 0;
        GLOBAL_VALUE = unsafe != null ? globalValueOffset(unsafe) : -1;
        GLOBAL_FIELD = GLOBAL_VALUE >= 0;
        if (reason != null && "unsafe".equals(choice())) {
            Logger.getLogger(RawAccess.class.getName())
                    .warning(PROPERTY + "=unsafe, but the portable path is used: " + reason);
        } else if (ALLOW_FLAG_MISSING) {
            Logger.getLogger(RawAccess.class.getName()).warning(allowFlagWarning(feature));
        }
    }

    /**
     * Whether a JVM of this feature release, whose {@code sun.misc.unsafe.memory.access} property
     * is {@code property} (null when unset), needs {@link #ALLOW_FLAG} for the {@code Unsafe} path.
     */
    static boolean allowFlagMissing(int feature, String property) {
        return feature >= 24 && !"allow".equals(property);
    }

    /** The warning a JVM of this feature release gets when {@link #ALLOW_FLAG_MISSING}. */
    static String allowFlagWarning(int feature) {
        return "Sandjar: JDK "
                + feature
                + " was started without "
                + ALLOW_FLAG
                + ", so the engine's memory accesses, global 0 and interruption checks take their"
                + " portable path and guest JavaScript runs about 1.2-1.4x slower. Add "
                + ALLOW_FLAG
                + " to the JVM's flags for the faster path (docs/jvm-flags.md), or set -D"
                + PROPERTY
                + "=varhandle to keep the portable one without this warning.";
    }

    private RawAccess() {}

    /**
     * The offset of {@code Thread.interrupted}, checked against {@code isInterrupted()} on a thread
     * of our own, or -1 when the field is missing, of another type or does not track it.
     */
    private static long interruptedOffset(sun.misc.Unsafe unsafe) {
        try {
            Field f = Thread.class.getDeclaredField("interrupted");
            if (f.getType() != boolean.class
                    || !java.lang.reflect.Modifier.isVolatile(f.getModifiers())) {
                return -1;
            }
            long offset = unsafe.objectFieldOffset(f);
            Thread probe = new Thread(() -> {}, "sandjar-interrupt-probe");
            boolean before = unsafe.getBooleanVolatile(probe, offset);
            probe.interrupt();
            boolean after = unsafe.getBooleanVolatile(probe, offset);
            return !before && after && probe.isInterrupted() ? offset : -1;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return -1;
        }
    }

    /**
     * The offset of {@code GlobalInstance.valueLow}, or -1 unless a write through each side (the
     * setter, the offset) reads back the same through the other.
     */
    private static long globalValueOffset(sun.misc.Unsafe unsafe) {
        try {
            Field f = GlobalInstance.class.getDeclaredField("valueLow");
            if (f.getType() != long.class
                    || java.lang.reflect.Modifier.isStatic(f.getModifiers())
                    || java.lang.reflect.Modifier.isVolatile(f.getModifiers())) {
                return -1;
            }
            long offset = unsafe.objectFieldOffset(f);
            GlobalInstance g = new GlobalInstance(Value.i32(0), MutabilityType.Var);
            g.setValue(0x1234_5678_9abc_def0L);
            if (unsafe.getLong(g, offset) != 0x1234_5678_9abc_def0L) {
                return -1;
            }
            unsafe.putLong(g, offset, -77L);
            return g.getValue() == -77L ? offset : -1;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return -1;
        }
    }

    private static String choice() {
        return System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
    }

    /**
     * Why Unsafe must not be used here, apart from JDK 24+'s flag ({@link #allowFlagMissing}), or
     * null when it may.
     */
    private static String reasonAgainst() {
        String choice = choice();
        switch (choice) {
            case "varhandle":
                return PROPERTY + "=varhandle";
            case "auto":
            case "unsafe":
                break;
            default:
                throw new IllegalArgumentException(
                        PROPERTY
                                + " must be auto, unsafe or varhandle, not \""
                                + System.getProperty(PROPERTY)
                                + "\"");
        }
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            return "the platform is big-endian";
        }
        String arch = System.getProperty("os.arch", "");
        if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            return "os.arch " + arch + " is not amd64 or aarch64";
        }
        return null;
    }
}
