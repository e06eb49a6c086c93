package dev.sandjar.outline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The pass's size step ({@code outline.maxMethodBytes}): after every other rewrite, so the sizes
 * are final, each method whose code is over the limit has regions moved into methods of their own
 * ({@link MethodSplitter#splitOne}: the largest movable dominator subtree that fits, one at a time,
 * measuring again after each) until it fits; the new methods are split the same way. HotSpot
 * compiles no method over 8,000 bytes of bytecode ({@code HugeMethodLimit}, unless the JVM runs
 * with {@code -XX:-DontCompileHugeMethods}), so with a limit under that a stock JVM compiles every
 * method of the class. A method that cannot be brought under the limit fails the build, naming it.
 *
 * <p>The moved code is plain bytecode whatever the earlier steps wrote into it: the inlined memory
 * accesses and global-0 reads take the memory from a local (the memory parameter, passed in like
 * any live local), their temporaries are written before they are read inside each access (never
 * live at a region's edge), and the scratch array is the memory's shared one, as in the methods the
 * outlining step made.
 */
final class SizeSplit implements Opcodes {
    private SizeSplit() {}

    private static final boolean DEBUG = Boolean.getBoolean("outline.debug");

    /**
     * For finding a wrong split by bisection: the step stops after this many regions moved ({@code
     * -Doutline.splitLimit=N}; the build then fails on the methods still over the limit unless
     * {@code outline.debug} is set too).
     */
    private static final int LIMIT = Integer.getInteger("outline.splitLimit", Integer.MAX_VALUE);

    /** {@code -Doutline.spill=false}: no carried operand stacks are spilled (for bisecting). */
    private static final boolean SPILL =
            Boolean.parseBoolean(System.getProperty("outline.spill", "true"));

    /**
     * A region is hot when its entry ran more than the profile's most frequent block over this:
     * with the most frequent one the interpreter's dispatch, a call per entry of a region run a
     * hundredth as often costs well under 1% of the run.
     */
    private static final long HOT_DIVISOR = 100;

    /** The most regions moved out of one method before the step gives up on it. */
    private static final int MAX_ROUNDS = 500;

    /**
     * Splits every method of {@code cn} over {@code maxBytes} bytes of code (0: does nothing);
     * {@code sharedScratch} when the memory's shared scratch array may carry the results (the
     * memory accesses were written in place, so the class runs on the engine's memory). Returns a
     * one-line report; throws naming the method when one cannot be brought under the limit.
     */
    static String split(ClassNode cn, int maxBytes, boolean sharedScratch) {
        return split(cn, maxBytes, sharedScratch, Profile.allCold());
    }

    /**
     * As {@link #split(ClassNode, int, boolean)}, choosing the regions to move by {@code heat}
     * (counts per block of each method over the limit, as {@link #instrument} numbers them; written
     * by build/outline-profile.sh): the coldest first, so that the code a run spends its time in
     * keeps its place and is not reached through a call. {@link Profile#allCold()} chooses by size
     * alone.
     */
    static String split(ClassNode cn, int maxBytes, boolean sharedScratch, Profile heat) {
        return split(cn, maxBytes, sharedScratch, heat, false);
    }

    /**
     * As {@link #split(ClassNode, int, boolean, Profile)}; {@code bySize} chooses by size alone and
     * only counts, by {@code heat}, the hot regions it moved (what a profile saves).
     */
    static String split(
            ClassNode cn, int maxBytes, boolean sharedScratch, Profile heat, boolean bySize) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException(
                    "maxMethodBytes (" + maxBytes + ") must be >= 0 (0: off)");
        }
        if (maxBytes == 0) {
            return "";
        }
        Set<String> names = new HashSet<>();
        Deque<MethodNode> work = new ArrayDeque<>();
        int largest = 0;
        for (MethodNode m : cn.methods) {
            names.add(m.name);
            int size = measure(cn, m);
            largest = Math.max(largest, size);
            if (size > maxBytes) {
                work.add(m);
            }
        }
        int over = work.size();
        Map<LabelNode, Long> labels = null;
        long most = 0;
        for (MethodNode m : work) {
            long[] counts = heat.counts(m.name);
            if (counts != null) {
                most = Math.max(most, Arrays.stream(counts).max().orElse(0));
                labels = labels == null ? new HashMap<>() : labels;
                MethodSplitter s = new MethodSplitter(cn, m);
                s.heat = labels;
                s.recordHeat(counts);
            }
        }
        int moved = 0;
        int grouped = 0;
        int spilled = 0;
        int bySizeFallback = 0;
        int hotMoved = 0;
        List<MethodNode> added = new ArrayList<>();
        while (!work.isEmpty()) {
            MethodNode m = work.poll();
            int size = measure(cn, m);
            for (int round = 0; size > maxBytes && moved < LIMIT; round++) {
                if (round == MAX_ROUNDS) {
                    throw tooBig(cn, m, size, maxBytes, MAX_ROUNDS + " regions moved out of it");
                }
                int slot = sharedScratch ? InlineAccesses.memorySlot(m) : -1;
                String name = freshName(names, m.name);
                MethodSplitter splitter = new MethodSplitter(cn, m);
                splitter.heat = labels;
                splitter.hotCount = most / HOT_DIVISOR;
                splitter.bySize = bySize;
                MethodNode part = splitter.splitOne(maxBytes, size, name, slot);
                if (part == null && SPILL && new MethodSplitter(cn, m).spillStacks()) {
                    spilled++;
                    size = measure(cn, m);
                    splitter = new MethodSplitter(cn, m);
                    splitter.heat = labels;
                    splitter.hotCount = most / HOT_DIVISOR;
                    splitter.bySize = bySize;
                    part = splitter.splitOne(maxBytes, size, name, slot);
                }
                if (part == null && labels != null) {
                    // what is left moves only as one large region: take it by size
                    splitter = new MethodSplitter(cn, m);
                    splitter.heat = labels;
                    splitter.bySize = true;
                    part = splitter.splitOne(maxBytes, size, name, slot);
                    bySizeFallback += part != null ? 1 : 0;
                }
                if (part == null) {
                    if (DEBUG) {
                        System.err.println("STUCK " + m.name + " " + size);
                        break;
                    }
                    throw tooBig(cn, m, size, maxBytes, "no region of it can move");
                }
                int after = measure(cn, m);
                if (after >= size) {
                    throw tooBig(cn, m, size, maxBytes, "moving a region did not make it smaller");
                }
                size = after;
                names.add(name);
                cn.methods.add(part);
                added.add(part);
                work.add(part);
                moved++;
                grouped += splitter.regionsMoved > 1 ? 1 : 0;
                hotMoved += splitter.hotMoved;
            }
        }
        int now = 0;
        for (MethodNode m : cn.methods) {
            int size = measure(cn, m);
            if (size > maxBytes && !DEBUG && moved < LIMIT) {
                throw tooBig(cn, m, size, maxBytes, "after the split");
            }
            now = Math.max(now, size);
        }
        return String.format(
                Locale.ROOT,
                "size split: %d methods over %d bytes, %d new methods (%d of them several regions"
                        + " behind an entry switch, %d chosen by size where the coldest"
                        + " could not move), %d hot regions moved (entered over 1/%d as often as"
                        + " the profile's most frequent block), carried stacks spilled in %d"
                        + " methods; largest method %d bytes, was %d%n",
                over,
                maxBytes,
                moved,
                grouped,
                bySizeFallback,
                hotMoved,
                HOT_DIVISOR,
                spilled,
                now,
                largest);
    }

    /**
     * Instead of splitting, adds a block counter ({@code outlineCounts$NAME}, one per block) to
     * every method over {@code maxBytes}, for the training run that writes the size profile ({@link
     * #split(ClassNode, int, boolean, Profile)}): the same class the size step would start from, so
     * its block numbers are the ones the step reads the counts by. A method whose counters would
     * take it past the JVM's 65,535-byte limit counts only the blocks a region can start at.
     */
    static String instrument(ClassNode cn, int maxBytes) {
        int methods = 0;
        int counters = 0;
        for (MethodNode m : new ArrayList<>(cn.methods)) {
            int size = measure(cn, m);
            if (size <= maxBytes) {
                continue;
            }
            MethodSplitter s = new MethodSplitter(cn, m);
            boolean emptyOnly = size + 6L * s.blocks() > 60_000;
            if (DEBUG) {
                System.err.println(m.name + " " + size + " bytes, " + s.blocks() + " blocks");
            }
            counters += s.instrumentBlocks(emptyOnly);
            methods++;
        }
        return String.format(
                Locale.ROOT,
                "size profile: %d block counters in %d methods over %d bytes%n",
                counters,
                methods,
                maxBytes);
    }

    private static IllegalStateException tooBig(
            ClassNode cn, MethodNode m, int size, int maxBytes, String why) {
        return new IllegalStateException(
                String.format(
                        Locale.ROOT,
                        "%s.%s is %d bytes of bytecode, over outline.maxMethodBytes (%d): %s."
                                + " Raise the limit or set it to 0 (HotSpot then compiles the"
                                + " method only with -XX:-DontCompileHugeMethods)",
                        cn.name.replace('/', '.'),
                        m.name,
                        size,
                        maxBytes,
                        why));
    }

    private static String freshName(Set<String> names, String base) {
        for (int i = 0; ; i++) {
            String n = base + "$split" + i;
            if (!names.contains(n)) {
                return n;
            }
        }
    }

    /**
     * The size of {@code m}'s code, setting its {@code maxLocals} and {@code maxStack} to what its
     * instructions need (the analysis the splitter runs sizes its frames by them; the earlier steps
     * leave them unset or short on the code they wrote).
     */
    static int measure(ClassNode cn, MethodNode m) {
        int size = InlineAccesses.codeSize(cn, m);
        // measured in a class of its own, whose few constants each ldc reaches in one byte; in
        // the real class's pool an ldc may need ldc_w's two
        for (AbstractInsnNode i : m.instructions) {
            if (i instanceof LdcInsnNode l && !(l.cst instanceof Long || l.cst instanceof Double)) {
                size++;
            }
        }
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cw.visit(V17, ACC_PUBLIC, cn.name, null, "java/lang/Object", null);
        MethodNode copy = new MethodNode(ASM9, m.access, m.name, m.desc, m.signature, null);
        m.accept(copy);
        copy.instructions.add(new LabelNode());
        copy.accept(cw);
        cw.visitEnd();
        ClassNode back = new ClassNode();
        new ClassReader(cw.toByteArray()).accept(back, ClassReader.SKIP_FRAMES);
        m.maxStack = back.methods.get(0).maxStack;
        m.maxLocals = Math.max(InlineAccesses.localsUsed(m), back.methods.get(0).maxLocals);
        return size;
    }
}
