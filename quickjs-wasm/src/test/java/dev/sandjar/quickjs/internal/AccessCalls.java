package dev.sandjar.quickjs.internal;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Memory;
import java.lang.invoke.MethodHandles;

/**
 * Each of Chicory's typed memory helpers, called as the generated engine code calls them, for
 * {@code InlineAccessesTest}. In this package because the helpers' class is package-private here;
 * {@link #lookup} lets the test define the rewritten copy beside it. (Chicory writes that class
 * into another class's source file, which javac's "auxiliaryclass" lint warns of.)
 */
@SuppressWarnings("auxiliaryclass")
public final class AccessCalls {
    private AccessCalls() {}

    /** A lookup with package access, to define the rewritten copy of this class in this package. */
    public static MethodHandles.Lookup lookup() {
        return MethodHandles.lookup();
    }

    public static byte readByte(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadByte(base, offset, m);
    }

    public static short readShort(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadShort(base, offset, m);
    }

    public static int readInt(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadInt(base, offset, m);
    }

    public static long readLong(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadLong(base, offset, m);
    }

    public static float readFloat(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadFloat(base, offset, m);
    }

    public static double readDouble(int base, int offset, Memory m) {
        return QuickJsEngineModuleMachineShaded.memoryReadDouble(base, offset, m);
    }

    public static void writeByte(int base, byte v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteByte(base, v, offset, m);
    }

    public static void writeShort(int base, short v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteShort(base, v, offset, m);
    }

    public static void writeInt(int base, int v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteInt(base, v, offset, m);
    }

    public static void writeLong(int base, long v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteLong(base, v, offset, m);
    }

    public static void writeFloat(int base, float v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteFloat(base, v, offset, m);
    }

    public static void writeDouble(int base, double v, int offset, Memory m) {
        QuickJsEngineModuleMachineShaded.memoryWriteDouble(base, v, offset, m);
    }

    public static long readGlobal0(Memory m, Instance i) {
        return QuickJsEngineModuleMachineShaded.readGlobal(0, i);
    }

    public static void writeGlobal0(long v, Memory m, Instance i) {
        QuickJsEngineModuleMachineShaded.writeGlobal(v, 0, i);
    }
}
