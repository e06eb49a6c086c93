package dev.sandjar.outline;

import java.util.Map;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Replaces each call to one of Chicory's typed memory helpers ({@code memoryReadInt(base, offset,
 * memory)} and the rest, in the generated {@code ...Shaded} class) with the access itself, written
 * into the calling method: the effective address, the block's array, the block and offset tests and
 * one {@code sun.misc.Unsafe} load or store, with the original call kept as the slow path.
 *
 * <p>Why: a helper call costs C2's inlining budget (the method plus what it has inlined stays under
 * 8,000 bytes of bytecode) at every site, so in the big generated methods most accesses end up as
 * real calls that spill the method's registers (docs/performance.md, "Guest compute"). Bytecode
 * written into the method itself costs no budget: every access is compiled in place.
 *
 * <p>The fast path reads two public fields of the engine's memory and three constants, which this
 * pass names and {@code quickjs-wasm} keeps (its {@code internal.BlockMemory} and {@code
 * internal.RawAccess}): the memory is 4 KiB blocks of {@code byte[]}, {@code blocks} for loads
 * (every block, never null) and {@code writable} for stores (a block's array only while it is
 * dirty, else null); {@code RawAccess.ENABLED} says whether {@code Unsafe} may be used at all.
 * Every case the fast path does not take (a negative base, an access that crosses a block or ends
 * past the memory, the first store to a clean block, {@code Unsafe} not allowed) runs the original
 * call, so traps, dirty marking and the portable path stay where they are.
 */
final class InlineAccesses implements Opcodes {
    static final String MEMORY = "com/dylibso/chicory/runtime/Memory";
    static final String BLOCK_MEMORY = "dev/sandjar/quickjs/internal/BlockMemory";
    static final String RAW_ACCESS = "dev/sandjar/quickjs/internal/RawAccess";
    static final String UNSAFE = "sun/misc/Unsafe";
    static final String INSTANCE = "com/dylibso/chicory/runtime/Instance";
    static final String GLOBAL = "com/dylibso/chicory/runtime/GlobalInstance";
    static final String READ_GLOBAL = "(IL" + INSTANCE + ";)J";
    static final String WRITE_GLOBAL = "(JIL" + INSTANCE + ";)V";
    static final int BLOCK_SHIFT = 12;
    static final int BLOCK_SIZE = 1 << BLOCK_SHIFT;

    /** A typed helper: its access size, its value's JVM type and the Unsafe method it becomes. */
    private record Access(boolean store, int size, Type value, String unsafeName) {}

    private static final Map<String, Access> HELPERS =
            Map.ofEntries(
                    Map.entry("memoryReadByte", new Access(false, 1, Type.BYTE_TYPE, "getByte")),
                    Map.entry("memoryReadShort", new Access(false, 2, Type.SHORT_TYPE, "getShort")),
                    Map.entry("memoryReadInt", new Access(false, 4, Type.INT_TYPE, "getInt")),
                    Map.entry("memoryReadLong", new Access(false, 8, Type.LONG_TYPE, "getLong")),
                    Map.entry("memoryReadFloat", new Access(false, 4, Type.FLOAT_TYPE, "getFloat")),
                    Map.entry(
                            "memoryReadDouble",
                            new Access(false, 8, Type.DOUBLE_TYPE, "getDouble")),
                    Map.entry("memoryWriteByte", new Access(true, 1, Type.BYTE_TYPE, "putByte")),
                    Map.entry("memoryWriteShort", new Access(true, 2, Type.SHORT_TYPE, "putShort")),
                    Map.entry("memoryWriteInt", new Access(true, 4, Type.INT_TYPE, "putInt")),
                    Map.entry("memoryWriteLong", new Access(true, 8, Type.LONG_TYPE, "putLong")),
                    Map.entry("memoryWriteFloat", new Access(true, 4, Type.FLOAT_TYPE, "putFloat")),
                    Map.entry(
                            "memoryWriteDouble",
                            new Access(true, 8, Type.DOUBLE_TYPE, "putDouble")));

    /** The JVM's limit on a method's code. */
    static final int MAX_CODE = 65_535;

    private InlineAccesses() {}

    /** The helper {@code call} is, or null when it is none of them. */
    static Access helper(MethodInsnNode call) {
        if (call.getOpcode() != INVOKESTATIC || !call.owner.endsWith("Shaded")) {
            return null;
        }
        Access a = HELPERS.get(call.name);
        if (a == null) {
            return null;
        }
        String desc =
                a.store
                        ? "(I" + a.value.getDescriptor() + "IL" + MEMORY + ";)V"
                        : "(IIL" + MEMORY + ";)" + a.value.getDescriptor();
        return call.desc.equals(desc) ? a : null;
    }

    /**
     * Rewrites the helper calls, the reads and writes of global 0 ({@link #rewriteGlobals}) and the
     * opcode helpers and interruption checks ({@link InlineOpcodes}), and the outlined methods'
     * scratch arrays ({@link #shareScratch}) in every method of {@code cn} whose code stays within
     * {@code maxCode} bytes after it; returns what it did, four lines. A method that would grow
     * past it keeps its calls.
     */
    static String rewrite(ClassNode cn, int maxCode) {
        int methods = 0;
        int sites = 0;
        int kept = 0;
        int keptSites = 0;
        int globals = 0;
        int opcodes = 0;
        int scratch = 0;
        for (int k = 0; k < cn.methods.size(); k++) {
            MethodNode m = copyOf(cn.methods.get(k));
            int slot = memorySlot(m);
            int g = rewriteGlobals(m, slot);
            int sc = shareScratch(m, slot);
            int op = InlineOpcodes.rewrite(m);
            int a = rewrite(m);
            if (a + g + op + sc == 0) {
                continue;
            }
            if (codeSize(cn, m) > maxCode) {
                kept++;
                keptSites += a;
                continue;
            }
            cn.methods.set(k, m);
            methods += a + g > 0 ? 1 : 0;
            sites += a;
            globals += g;
            opcodes += op;
            scratch += sc;
        }
        return "memory accesses: "
                + sites
                + " written in place in "
                + methods
                + " methods; "
                + keptSites
                + " left as calls in "
                + kept
                + " methods that would pass "
                + maxCode
                + " bytes\n"
                + "global 0: "
                + globals
                + " reads and writes through the memory's field\n"
                + "opcode helpers: "
                + opcodes
                + " calls written in place\n"
                + "scratch arrays: the memory's shared one in "
                + scratch
                + " methods\n";
    }

    /**
     * Rewrites {@code m}'s reads and writes of global 0 ({@code readGlobal(0, instance)}, {@code
     * writeGlobal(value, 0, instance)}) into a load or store of the value field of {@code
     * BlockMemory.global0}, the memory's reference to that global's object, through {@code Unsafe}
     * ({@code RawAccess.GLOBAL_VALUE}; its getter and setter where that is not known); returns how
     * many. A method is left alone unless it has exactly one memory parameter and never stores to
     * its slot ({@code slot}, from {@link #memorySlot}), the memory the field is read from.
     */
    static int rewriteGlobals(MethodNode m, int slot) {
        if (slot < 0) {
            return 0;
        }
        int n = 0;
        int temps = -1;
        for (AbstractInsnNode i : m.instructions.toArray()) {
            if (!(i instanceof MethodInsnNode call)
                    || call.getOpcode() != INVOKESTATIC
                    || !call.owner.endsWith("Shaded")) {
                continue;
            }
            boolean read = call.name.equals("readGlobal") && call.desc.equals(READ_GLOBAL);
            boolean write = call.name.equals("writeGlobal") && call.desc.equals(WRITE_GLOBAL);
            AbstractInsnNode instance = call.getPrevious();
            AbstractInsnNode index = instance == null ? null : instance.getPrevious();
            // Only the shape the generated code has: iconst_0, aload instance, the call, with no
            // label between them (so no other path can reach the call with another index).
            if (!(read || write)
                    || instance == null
                    || instance.getOpcode() != ALOAD
                    || index == null
                    || index.getOpcode() != ICONST_0) {
                continue;
            }
            if (temps < 0) {
                temps = localsUsed(m);
                m.maxLocals = temps + 3;
            }
            InsnList o = global0Access(slot, temps, write);
            m.instructions.insert(call, o);
            m.instructions.remove(index);
            m.instructions.remove(instance);
            m.instructions.remove(call);
            n++;
        }
        return n;
    }

    /**
     * Stack: nothing -> global 0's value, or (for a {@code write}) the value (long) -> nothing. The
     * memory's {@code global0} in local {@code temps}, a written value in {@code temps + 1}; with
     * {@code RawAccess.GLOBAL_FIELD}, its value field loaded or stored through {@code Unsafe} (C2
     * inlines nothing into a method over 8,000 bytes, not even the getter), else {@code getValue()}
     * or {@code setValue(long)}.
     */
    private static InsnList global0Access(int memory, int temps, boolean write) {
        InsnList o = new InsnList();
        LabelNode slow = new LabelNode();
        LabelNode done = new LabelNode();
        if (write) {
            o.add(new VarInsnNode(LSTORE, temps + 1));
        }
        global0(o, memory, temps, slow);
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "UNSAFE", "L" + UNSAFE + ";"));
        o.add(new VarInsnNode(ALOAD, temps));
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "GLOBAL_VALUE", "J"));
        if (write) {
            o.add(new VarInsnNode(LLOAD, temps + 1));
        }
        o.add(
                write
                        ? new MethodInsnNode(
                                INVOKEVIRTUAL, UNSAFE, "putLong", "(Ljava/lang/Object;JJ)V", false)
                        : new MethodInsnNode(
                                INVOKEVIRTUAL, UNSAFE, "getLong", "(Ljava/lang/Object;J)J", false));
        o.add(new JumpInsnNode(GOTO, done));
        o.add(slow);
        o.add(new VarInsnNode(ALOAD, temps));
        if (write) {
            o.add(new VarInsnNode(LLOAD, temps + 1));
        }
        o.add(
                write
                        ? new MethodInsnNode(INVOKEVIRTUAL, GLOBAL, "setValue", "(J)V", false)
                        : new MethodInsnNode(INVOKEVIRTUAL, GLOBAL, "getValue", "()J", false));
        o.add(done);
        return o;
    }

    /**
     * The memory's {@code global0} into local {@code temps}; to {@code slow} when the field offset
     * is not known or the reference is null (the call then throws, as Chicory's would: an {@code
     * Unsafe} access on null must never be made).
     */
    private static void global0(InsnList o, int memory, int temps, LabelNode slow) {
        o.add(new VarInsnNode(ALOAD, memory));
        o.add(new TypeInsnNode(CHECKCAST, BLOCK_MEMORY));
        o.add(new FieldInsnNode(GETFIELD, BLOCK_MEMORY, "global0", "L" + GLOBAL + ";"));
        o.add(new InsnNode(DUP));
        o.add(new VarInsnNode(ASTORE, temps));
        o.add(new JumpInsnNode(IFNULL, slow));
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "GLOBAL_FIELD", "Z"));
        o.add(new JumpInsnNode(IFEQ, slow));
    }

    /**
     * Replaces the scratch array an outlined method allocates on entry ({@code MethodSplitter}:
     * {@code newarray long} of its pieces' longest result, into a local, as its first three
     * instructions) with the memory's shared {@code BlockMemory.scratch}; returns 1 when it did.
     * The interpreter loop allocated one on every guest function call (about 30 MB per fib(25),
     * nearly all the engine thread's allocation). Safe because each piece writes the array only on
     * its way out, after every call it makes, and its caller reads it right after the call. A
     * method needing more than {@link Outliner#SCRATCH_SLOTS} keeps its own. {@code slot} is the
     * method's memory parameter ({@link #memorySlot}).
     */
    static int shareScratch(MethodNode m, int slot) {
        AbstractInsnNode length = m.instructions.getFirst();
        AbstractInsnNode array = length == null ? null : length.getNext();
        AbstractInsnNode store = array == null ? null : array.getNext();
        if (slot < 0
                || !(array instanceof IntInsnNode newArray)
                || newArray.getOpcode() != NEWARRAY
                || newArray.operand != T_LONG
                || !(store instanceof VarInsnNode local)
                || local.getOpcode() != ASTORE) {
            return 0;
        }
        int n;
        if (length instanceof IntInsnNode c
                && (c.getOpcode() == BIPUSH || c.getOpcode() == SIPUSH)) {
            n = c.operand;
        } else if (length.getOpcode() >= ICONST_0 && length.getOpcode() <= ICONST_5) {
            n = length.getOpcode() - ICONST_0;
        } else {
            return 0;
        }
        if (n > Outliner.SCRATCH_SLOTS) {
            return 0;
        }
        InsnList o = new InsnList();
        o.add(new VarInsnNode(ALOAD, slot));
        o.add(new TypeInsnNode(CHECKCAST, BLOCK_MEMORY));
        o.add(new FieldInsnNode(GETFIELD, BLOCK_MEMORY, "scratch", "[J"));
        m.instructions.insertBefore(length, o);
        m.instructions.remove(length);
        m.instructions.remove(array);
        return 1;
    }

    /** The slot of {@code m}'s one memory parameter if nothing stores to it, else -1. */
    static int memorySlot(MethodNode m) {
        if ((m.access & ACC_STATIC) == 0) {
            return -1;
        }
        int slot = 0;
        int found = -1;
        for (Type t : Type.getArgumentTypes(m.desc)) {
            if (t.getDescriptor().equals("L" + MEMORY + ";")) {
                if (found >= 0) {
                    return -1;
                }
                found = slot;
            }
            slot += t.getSize();
        }
        if (found < 0) {
            return -1;
        }
        for (AbstractInsnNode i : m.instructions) {
            if (i instanceof VarInsnNode v && v.var == found && v.getOpcode() == ASTORE) {
                return -1;
            }
        }
        return found;
    }

    /** Rewrites {@code m}'s helper calls; returns how many. */
    static int rewrite(MethodNode m) {
        Temps t = null;
        int n = 0;
        for (AbstractInsnNode i : m.instructions.toArray()) {
            if (i instanceof MethodInsnNode call) {
                Access a = helper(call);
                if (a == null) {
                    continue;
                }
                if (t == null) {
                    t = new Temps(m);
                }
                m.instructions.insert(call, a.store ? store(a, call, t) : load(a, call, t));
                m.instructions.remove(call);
                n++;
            }
        }
        return n;
    }

    /** The locals a rewritten access uses, past the method's own; shared by its sites. */
    private static final class Temps {
        final int memory;
        final int offset;
        final int base;
        final int addr;
        final int inBlock;
        final int block;
        final int arrays;
        final int array;
        final int valueI;
        final int valueF;
        final int valueJ;
        final int valueD;

        Temps(MethodNode m) {
            int s = localsUsed(m);
            memory = s++;
            offset = s++;
            base = s++;
            addr = s++;
            inBlock = s++;
            block = s++;
            arrays = s++;
            array = s++;
            valueI = s++;
            valueF = s++;
            valueJ = s;
            s += 2;
            valueD = s;
            s += 2;
            m.maxLocals = s;
        }

        int value(Type t) {
            switch (t.getSort()) {
                case Type.LONG:
                    return valueJ;
                case Type.FLOAT:
                    return valueF;
                case Type.DOUBLE:
                    return valueD;
                default:
                    return valueI;
            }
        }
    }

    /**
     * The locals {@code m} uses: its parameters and every local an instruction names. Not {@code
     * maxLocals}, which a method the outlining pass made has not had computed yet.
     */
    static int localsUsed(MethodNode m) {
        int n = Type.getArgumentsAndReturnSizes(m.desc) >> 2;
        if ((m.access & ACC_STATIC) != 0) {
            n--;
        }
        for (AbstractInsnNode i : m.instructions) {
            if (i instanceof VarInsnNode v) {
                int size =
                        v.getOpcode() == LLOAD
                                        || v.getOpcode() == DLOAD
                                        || v.getOpcode() == LSTORE
                                        || v.getOpcode() == DSTORE
                                ? 2
                                : 1;
                n = Math.max(n, v.var + size);
            } else if (i instanceof IincInsnNode v) {
                n = Math.max(n, v.var + 1);
            }
        }
        return Math.max(n, m.maxLocals);
    }

    /** Stack: base, offset, memory -> the loaded value. */
    private static InsnList load(Access a, MethodInsnNode call, Temps t) {
        InsnList o = new InsnList();
        LabelNode slow = new LabelNode();
        LabelNode done = new LabelNode();
        o.add(new VarInsnNode(ASTORE, t.memory));
        o.add(new VarInsnNode(ISTORE, t.offset));
        o.add(new VarInsnNode(ISTORE, t.base));
        address(o, a, t, slow);
        blockIndex(o, t, "blocks", slow);
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "UNSAFE", "L" + UNSAFE + ";"));
        o.add(new VarInsnNode(ALOAD, t.arrays));
        o.add(new VarInsnNode(ILOAD, t.block));
        o.add(new InsnNode(AALOAD));
        rawOffset(o, t);
        o.add(
                new MethodInsnNode(
                        INVOKEVIRTUAL,
                        UNSAFE,
                        a.unsafeName,
                        "(Ljava/lang/Object;J)" + a.value.getDescriptor(),
                        false));
        o.add(new JumpInsnNode(GOTO, done));
        o.add(slow);
        o.add(new VarInsnNode(ILOAD, t.base));
        o.add(new VarInsnNode(ILOAD, t.offset));
        o.add(new VarInsnNode(ALOAD, t.memory));
        o.add(original(call));
        o.add(done);
        return o;
    }

    /** Stack: base, value, offset, memory -> nothing. */
    private static InsnList store(Access a, MethodInsnNode call, Temps t) {
        InsnList o = new InsnList();
        LabelNode slow = new LabelNode();
        LabelNode done = new LabelNode();
        int value = t.value(a.value);
        o.add(new VarInsnNode(ASTORE, t.memory));
        o.add(new VarInsnNode(ISTORE, t.offset));
        o.add(new VarInsnNode(a.value.getOpcode(ISTORE), value));
        o.add(new VarInsnNode(ISTORE, t.base));
        address(o, a, t, slow);
        blockIndex(o, t, "writable", slow);
        o.add(new VarInsnNode(ALOAD, t.arrays));
        o.add(new VarInsnNode(ILOAD, t.block));
        o.add(new InsnNode(AALOAD));
        o.add(new InsnNode(DUP));
        o.add(new VarInsnNode(ASTORE, t.array));
        o.add(new JumpInsnNode(IFNULL, slow));
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "UNSAFE", "L" + UNSAFE + ";"));
        o.add(new VarInsnNode(ALOAD, t.array));
        rawOffset(o, t);
        o.add(new VarInsnNode(a.value.getOpcode(ILOAD), value));
        o.add(
                new MethodInsnNode(
                        INVOKEVIRTUAL,
                        UNSAFE,
                        a.unsafeName,
                        "(Ljava/lang/Object;J" + a.value.getDescriptor() + ")V",
                        false));
        o.add(new JumpInsnNode(GOTO, done));
        o.add(slow);
        o.add(new VarInsnNode(ILOAD, t.base));
        o.add(new VarInsnNode(a.value.getOpcode(ILOAD), value));
        o.add(new VarInsnNode(ILOAD, t.offset));
        o.add(new VarInsnNode(ALOAD, t.memory));
        o.add(original(call));
        o.add(done);
        return o;
    }

    /**
     * Unsafe allowed, a base of at least 0 (Chicory's {@code getAddr} passes a negative one on as
     * the address, which only the slow path's trap handles), then addr = base + offset and its
     * offset in the block, which must leave room for the whole access.
     */
    private static void address(InsnList o, Access a, Temps t, LabelNode slow) {
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "ENABLED", "Z"));
        o.add(new JumpInsnNode(IFEQ, slow));
        o.add(new VarInsnNode(ILOAD, t.base));
        o.add(new JumpInsnNode(IFLT, slow));
        o.add(new VarInsnNode(ILOAD, t.base));
        o.add(new VarInsnNode(ILOAD, t.offset));
        o.add(new InsnNode(IADD));
        o.add(new InsnNode(DUP));
        o.add(new VarInsnNode(ISTORE, t.addr));
        o.add(new IntInsnNode(SIPUSH, BLOCK_SIZE - 1));
        o.add(new InsnNode(IAND));
        o.add(new InsnNode(DUP));
        o.add(new VarInsnNode(ISTORE, t.inBlock));
        if (a.size > 1) {
            o.add(new IntInsnNode(SIPUSH, BLOCK_SIZE - a.size));
            o.add(new JumpInsnNode(IF_ICMPGT, slow));
        } else {
            o.add(new InsnNode(POP));
        }
    }

    /**
     * The memory's {@code field} array in {@code t.arrays} and the address's block in {@code
     * t.block}, which must be below the array's length: that test is the wasm bounds check (an
     * address that overflowed to negative shifts to a block far above any memory's last).
     */
    private static void blockIndex(InsnList o, Temps t, String field, LabelNode slow) {
        o.add(new VarInsnNode(ALOAD, t.memory));
        o.add(new TypeInsnNode(CHECKCAST, BLOCK_MEMORY));
        o.add(new FieldInsnNode(GETFIELD, BLOCK_MEMORY, field, "[[B"));
        o.add(new VarInsnNode(ASTORE, t.arrays));
        o.add(new VarInsnNode(ILOAD, t.addr));
        o.add(new IntInsnNode(BIPUSH, BLOCK_SHIFT));
        o.add(new InsnNode(IUSHR));
        o.add(new InsnNode(DUP));
        o.add(new VarInsnNode(ISTORE, t.block));
        o.add(new VarInsnNode(ALOAD, t.arrays));
        o.add(new InsnNode(ARRAYLENGTH));
        o.add(new JumpInsnNode(IF_ICMPGE, slow));
    }

    /** Stack: ... -> ..., the byte[] base offset plus the offset in the block, as a long. */
    private static void rawOffset(InsnList o, Temps t) {
        o.add(new FieldInsnNode(GETSTATIC, RAW_ACCESS, "BYTE_ARRAY_BASE", "J"));
        o.add(new VarInsnNode(ILOAD, t.inBlock));
        o.add(new InsnNode(I2L));
        o.add(new InsnNode(LADD));
    }

    private static MethodInsnNode original(MethodInsnNode call) {
        return new MethodInsnNode(call.getOpcode(), call.owner, call.name, call.desc, call.itf);
    }

    private static MethodNode copyOf(MethodNode m) {
        MethodNode c =
                new MethodNode(
                        ASM9,
                        m.access,
                        m.name,
                        m.desc,
                        m.signature,
                        m.exceptions.toArray(new String[0]));
        m.accept(c);
        return c;
    }

    /**
     * The size of {@code m}'s code as a class writer lays it out (without the stack map frames,
     * which the limit does not count).
     */
    static int codeSize(ClassNode owner, MethodNode m) {
        MethodNode bare = copyOf(m);
        LabelNode end = new LabelNode();
        bare.instructions.add(end);
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(V17, ACC_PUBLIC, owner.name, null, "java/lang/Object", null);
        bare.accept(cw);
        cw.visitEnd();
        try {
            cw.toByteArray();
        } catch (MethodTooLargeException e) {
            return e.getCodeSize();
        }
        return end.getLabel().getOffset();
    }
}
