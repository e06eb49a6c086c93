package dev.sandjar.outline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Rewrites a class so that the cold regions of its huge static methods live in methods of their
 * own, leaving a hot remainder small enough for C2 to inline the calls in it (docs/engine.md, "The
 * outlining pass").
 *
 * <p>usage: {@code outline IN OUT PROFILE COLD_FRACTION GROUP_INSNS INLINE_ACCESSES
 * MAX_METHOD_BYTES SIZE_PROFILE METHOD...} moves, per method, every region whose entry ran at most
 * COLD_FRACTION times the method's most frequent count in the profile, then (when INLINE_ACCESSES
 * is {@code true}) writes every typed memory access into the method that makes it ({@link
 * #inlineAccesses}), then (when MAX_METHOD_BYTES is above 0) splits every method whose code is
 * still over that many bytes until none is, moving its coldest code by SIZE_PROFILE's block counts
 * ({@code -}: none, by size alone; {@link #splitHuge}); {@code instrument IN OUT METHOD...} writes
 * a copy of the class that counts how often each candidate region's entry runs, in a static {@code
 * long[]} per method (read by the training run that writes the profile); {@code instrument-size}
 * takes {@code outline}'s arguments and, in place of the size step, counts how often each block of
 * every method over MAX_METHOD_BYTES runs (for SIZE_PROFILE).
 */
public final class Outliner {
    private Outliner() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            throw new IllegalArgumentException(
                    "usage: outline|instrument-size IN OUT PROFILE COLD_FRACTION GROUP_INSNS"
                            + " INLINE_ACCESSES MAX_METHOD_BYTES SIZE_PROFILE|- METHOD..."
                            + " | instrument IN OUT METHOD...");
        }
        byte[] in = Files.readAllBytes(Path.of(args[1]));
        byte[] out;
        if (args[0].equals("outline") || args[0].equals("instrument-size")) {
            Profile profile = Profile.read(Path.of(args[3]));
            double fraction = Double.parseDouble(args[4]);
            int groupInsns = Integer.parseInt(args[5]);
            boolean inline = bool("INLINE_ACCESSES", args[6]);
            int maxMethodBytes = Integer.parseInt(args[7]);
            Profile sizeProfile =
                    args[8].equals("-") || maxMethodBytes == 0
                            ? Profile.allCold()
                            : Profile.read(Path.of(args[8]));
            StringBuilder report = new StringBuilder();
            // One read and one write of the class for both steps: it is 3 MB once rewritten, and
            // each write recomputes every method's frames.
            ClassNode cn = read(in);
            outline(
                    cn,
                    Arrays.asList(args).subList(9, args.length),
                    profile,
                    fraction,
                    groupInsns,
                    report);
            if (inline) {
                report.append(InlineAccesses.rewrite(cn, InlineAccesses.MAX_CODE));
            }
            // last, so the sizes it splits by are the ones the JVM sees
            if (args[0].equals("outline")) {
                report.append(SizeSplit.split(cn, maxMethodBytes, inline, sizeProfile));
            } else {
                report.append(SizeSplit.instrument(cn, maxMethodBytes));
            }
            out = write(cn);
            System.out.print(report);
        } else if (args[0].equals("instrument")) {
            out = instrument(in, Arrays.asList(args).subList(3, args.length));
        } else {
            throw new IllegalArgumentException("unknown mode '" + args[0] + "'");
        }
        Path target = Path.of(args[2]);
        if (target.getParent() != null) {
            Files.createDirectories(target.getParent());
        }
        Files.write(target, out);
    }

    /**
     * The class with the cold regions of {@code methods} outlined. A region is cold when its count
     * is at most {@code coldFraction} times the method's highest count; with {@link
     * Profile#allCold()} every candidate is. Regions share an outlined method up to {@code
     * groupInsns} instructions in all; 0 gives each its own. Every method's calls to Chicory's
     * unsigned-compare helper are then replaced by the comparison ({@link UnsignedCompares}).
     */
    public static byte[] outline(
            byte[] classFile,
            List<String> methods,
            Profile profile,
            double coldFraction,
            int groupInsns,
            StringBuilder report) {
        ClassNode cn = read(classFile);
        outline(cn, methods, profile, coldFraction, groupInsns, report);
        return write(cn);
    }

    private static void outline(
            ClassNode cn,
            List<String> methods,
            Profile profile,
            double coldFraction,
            int groupInsns,
            StringBuilder report) {
        if (!(coldFraction >= 0 && coldFraction <= 1)) {
            throw new IllegalArgumentException(
                    "coldFraction (" + coldFraction + ") must be in [0, 1]");
        }
        if (groupInsns < 0) {
            throw new IllegalArgumentException("groupInsns (" + groupInsns + ") must be >= 0");
        }
        List<MethodNode> added = new ArrayList<>();
        for (String name : methods) {
            long[] counts = profile.counts(name);
            long max = counts == null ? 0 : Arrays.stream(counts).max().orElse(0);
            MethodSplitter s = new MethodSplitter(cn, method(cn, name));
            added.addAll(s.outline(counts, (long) (max * coldFraction), groupInsns, report));
        }
        cn.methods.addAll(added);
        int compares = UnsignedCompares.rewrite(cn);
        report.append(UnsignedCompares.NAME)
                .append(": ")
                .append(compares)
                .append(" calls replaced by the comparison\n");
    }

    private static boolean bool(String name, String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(
                    name + " must be true or false, not \"" + value + "\"");
        }
        return value.equals("true");
    }

    /**
     * The length of the engine memory's shared scratch array ({@code BlockMemory.SCRATCH_SLOTS} in
     * {@code quickjs-wasm}, which must be the same; its tests check): an outlined method whose
     * pieces return more locals keeps its own array.
     */
    public static final int SCRATCH_SLOTS = 64;

    /**
     * The class after the pass's last step ({@link InlineAccesses}), in every method whose code
     * stays within the JVM's limit: each call to Chicory's typed memory helpers replaced by the
     * access itself, global 0 read and written through the memory's field, the opcode helpers and
     * interruption checks written in place ({@link InlineOpcodes}) and the outlined methods'
     * scratch arrays replaced by the memory's one; appends what it did to {@code report}.
     */
    public static byte[] inlineAccesses(byte[] classFile, StringBuilder report) {
        ClassNode cn = read(classFile);
        report.append(InlineAccesses.rewrite(cn, InlineAccesses.MAX_CODE));
        return write(cn);
    }

    /**
     * The class with every method whose code is over {@code maxBytes} bytes split until none is
     * ({@link SizeSplit}): regions move into new methods {@code NAME$splitN}. With {@code
     * sharedScratch} the results come back in the memory's shared scratch array (a class whose
     * memory accesses were written in place, {@link #inlineAccesses}), else in an array the method
     * allocates. Throws naming the method when one cannot be brought under the limit.
     */
    public static byte[] splitHuge(
            byte[] classFile, int maxBytes, boolean sharedScratch, StringBuilder report) {
        ClassNode cn = read(classFile);
        report.append(SizeSplit.split(cn, maxBytes, sharedScratch));
        return write(cn);
    }

    /**
     * As {@link #splitHuge(byte[], int, boolean, StringBuilder)}, moving the coldest code by {@code
     * heat}, a size profile of the class ({@link #instrumentSize}).
     */
    public static byte[] splitHuge(
            byte[] classFile,
            int maxBytes,
            boolean sharedScratch,
            Profile heat,
            StringBuilder report) {
        ClassNode cn = read(classFile);
        report.append(SizeSplit.split(cn, maxBytes, sharedScratch, heat));
        return write(cn);
    }

    /**
     * The class with a counter per block ({@code outlineCounts$NAME}) in every method over {@code
     * maxBytes}: run it, and its counts are the size profile {@link #splitHuge(byte[], int,
     * boolean, Profile, StringBuilder)} takes for the same class.
     */
    public static byte[] instrumentSize(byte[] classFile, int maxBytes, StringBuilder report) {
        ClassNode cn = read(classFile);
        report.append(SizeSplit.instrument(cn, maxBytes));
        return write(cn);
    }

    /** The class with block counters in {@code methods} (see {@link MethodSplitter#instrument}). */
    public static byte[] instrument(byte[] classFile, List<String> methods) {
        ClassNode cn = read(classFile);
        for (String name : methods) {
            new MethodSplitter(cn, method(cn, name)).instrument();
        }
        return write(cn);
    }

    /** The name of the static long[] field that {@link #instrument} adds for a method. */
    public static String counterField(String method) {
        return MethodSplitter.counterField(method);
    }

    private static ClassNode read(byte[] classFile) {
        ClassNode cn = new ClassNode();
        new ClassReader(classFile).accept(cn, ClassReader.SKIP_FRAMES);
        return cn;
    }

    private static MethodNode method(ClassNode cn, String name) {
        MethodNode found = null;
        for (MethodNode m : cn.methods) {
            if (m.name.equals(name)) {
                if (found != null) {
                    throw new IllegalStateException(cn.name + " has more than one method " + name);
                }
                found = m;
            }
        }
        if (found == null) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "%s has no method %s: the class is not the shape the pass expects",
                            cn.name,
                            name));
        }
        return found;
    }

    private static byte[] write(ClassNode cn) {
        ClassWriter cw =
                new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
                    // The methods rewritten here merge only primitives, null and their own
                    // parameters' types; Object is a safe answer that needs no class loading.
                    @Override
                    protected String getCommonSuperClass(String type1, String type2) {
                        return "java/lang/Object";
                    }
                };
        cn.accept(cw);
        return cw.toByteArray();
    }
}
