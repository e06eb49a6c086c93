package dev.sandjar.outline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicInterpreter;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * One static method, cut into basic blocks with their dominator tree and live locals. A
 * <em>candidate</em> is a reachable block (not the entry) with an empty operand stack whose
 * dominator subtree holds at least {@link #MIN_INSNS} instructions: the subtree is a single-entry
 * region. {@link #outline} moves cold regions into new static methods of the class; {@link
 * #instrument} counts how often each candidate's entry runs.
 */
final class MethodSplitter implements Opcodes {
    /** Smaller regions cost more in the call than they save. */
    static final int MIN_INSNS = 12;

    /** A larger cold region is split into its dominator subtrees instead. */
    static final int MAX_INSNS = 2400;

    private static final boolean DEBUG = Boolean.getBoolean("outline.debug");

    /** The size mode's slack: what its byte counts may be off by. */
    private static final int MARGIN = 64;

    /** The size mode moves no smaller region: its stub would save next to nothing. */
    private static final int MIN_GROUP_BYTES = 24;

    private final ClassNode owner;
    private final MethodNode mn;
    private AbstractInsnNode[] insns;
    private Frame<BasicValue>[] frames;
    private int n;
    private int nb;
    private int[] blockOf;
    private final List<Integer> starts = new ArrayList<>();
    private final List<Set<Integer>> succ = new ArrayList<>();
    private final List<Set<Integer>> pred = new ArrayList<>();
    private final List<List<Integer>> kids = new ArrayList<>();
    private final List<Integer> rpo = new ArrayList<>();
    private final Map<LabelNode, Integer> labelBlock = new HashMap<>();
    private int[] rpoNum;
    private int[] idom;
    private int[] size;
    private BitSet[] liveIn;
    private int tmpSlot = -1;

    /** The longest {@code long[]} an outlined method of this one returns its locals in. */
    private int scratchLength;

    private final InsnList tail = new InsnList();
    private int stubInsns;

    /**
     * The size mode ({@link #splitOne}): a constant int return ({@code iconst; ireturn}, how every
     * outlined method returns its exit index) comes back as an exit index of its own, not through
     * the scratch array. In a method that is itself an outlined piece, the code before such a
     * return has just written the piece's own results into the same shared array; a return value
     * written there too could land on one of them.
     */
    private boolean sizeMode;

    /**
     * How many regions the last {@link #splitOne} moved (more than one: behind an entry switch).
     */
    int regionsMoved;

    /**
     * The size mode's heat: how often the block each label starts ran in the training run ({@link
     * SizeSplit}, {@code size-profile.txt}), kept for the labels of moved code as they are copied;
     * null when there is no profile (regions are then chosen by size alone).
     */
    Map<LabelNode, Long> heat;

    /** How many of the regions the last {@link #splitOne} moved were hot. */
    int hotMoved;

    /** The size mode chooses by size even with a {@link #heat} (which it still keeps). */
    boolean bySize;

    /**
     * With a {@link #heat}, a region whose entry ran more often than this is hot: the size mode
     * moves the largest regions that are not first, and hot ones only when no other can move.
     */
    long hotCount = Long.MAX_VALUE;

    MethodSplitter(ClassNode owner, MethodNode mn) {
        this.owner = owner;
        this.mn = mn;
        if ((mn.access & ACC_STATIC) == 0) {
            throw new IllegalStateException(
                    mn.name + " is not static: the pass expects static methods");
        }
        if (mn.tryCatchBlocks != null && !mn.tryCatchBlocks.isEmpty()) {
            throw new IllegalStateException(
                    mn.name + " has try/catch blocks: the pass expects none (Chicory emits none)");
        }
        mn.localVariables = null;
        for (AbstractInsnNode i : mn.instructions.toArray()) {
            if (i instanceof FrameNode || i instanceof LineNumberNode) {
                mn.instructions.remove(i);
            }
        }
        analyze();
        // Every block starts with a label (the stub of an outlined region hangs off it).
        for (int b = 0; b < nb; b++) {
            AbstractInsnNode i = insns[starts.get(b)];
            if (!(i instanceof LabelNode)) {
                mn.instructions.insertBefore(i, new LabelNode());
            }
        }
        analyze();
        liveness();
    }

    private void analyze() {
        try {
            frames = new Analyzer<>(new BasicInterpreter()).analyze(owner.name, mn);
        } catch (AnalyzerException e) {
            throw new IllegalStateException(mn.name + " does not verify: " + e.getMessage(), e);
        }
        insns = mn.instructions.toArray();
        n = insns.length;
        boolean[] leader = new boolean[n + 1];
        leader[0] = true;
        for (int i = 0; i < n; i++) {
            AbstractInsnNode x = insns[i];
            if (x instanceof JumpInsnNode || isTerminal(x.getOpcode())) {
                leader[i + 1] = true;
            }
            for (LabelNode l : targets(x)) {
                leader[mn.instructions.indexOf(l)] = true;
            }
        }
        starts.clear();
        succ.clear();
        pred.clear();
        kids.clear();
        rpo.clear();
        labelBlock.clear();
        blockOf = new int[n];
        for (int i = 0; i < n; i++) {
            if (leader[i]) {
                starts.add(i);
            }
            blockOf[i] = starts.size() - 1;
            if (insns[i] instanceof LabelNode l) {
                labelBlock.put(l, blockOf[i]);
            }
        }
        nb = starts.size();
        for (int b = 0; b < nb; b++) {
            succ.add(new TreeSet<>());
            pred.add(new TreeSet<>());
            kids.add(new ArrayList<>());
        }
        for (int b = 0; b < nb; b++) {
            AbstractInsnNode last = insns[end(b) - 1];
            for (LabelNode l : targets(last)) {
                edge(b, labelBlock.get(l));
            }
            if (!isTerminal(last.getOpcode()) && b + 1 < nb) {
                edge(b, b + 1);
            }
        }
        dominators();
    }

    private static List<LabelNode> targets(AbstractInsnNode x) {
        List<LabelNode> t = new ArrayList<>();
        if (x instanceof JumpInsnNode j) {
            t.add(j.label);
        } else if (x instanceof TableSwitchInsnNode s) {
            t.add(s.dflt);
            t.addAll(s.labels);
        } else if (x instanceof LookupSwitchInsnNode s) {
            t.add(s.dflt);
            t.addAll(s.labels);
        }
        return t;
    }

    private static boolean isTerminal(int op) {
        return op == GOTO
                || (op >= IRETURN && op <= RETURN)
                || op == ATHROW
                || op == TABLESWITCH
                || op == LOOKUPSWITCH;
    }

    private int end(int b) {
        return b + 1 < nb ? starts.get(b + 1) : n;
    }

    private void edge(int a, int b) {
        succ.get(a).add(b);
        pred.get(b).add(a);
    }

    /** Cooper, Harvey and Kennedy's iterative dominators, over reverse postorder. */
    private void dominators() {
        rpoNum = new int[nb];
        java.util.Arrays.fill(rpoNum, -1);
        boolean[] seen = new boolean[nb];
        List<Integer> post = new ArrayList<>();
        List<List<Integer>> sl = new ArrayList<>();
        for (int b = 0; b < nb; b++) {
            sl.add(new ArrayList<>(succ.get(b)));
        }
        Deque<int[]> st = new ArrayDeque<>();
        st.push(new int[] {0, 0});
        seen[0] = true;
        while (!st.isEmpty()) {
            int[] top = st.peek();
            List<Integer> s = sl.get(top[0]);
            if (top[1] < s.size()) {
                int c = s.get(top[1]++);
                if (!seen[c]) {
                    seen[c] = true;
                    st.push(new int[] {c, 0});
                }
            } else {
                post.add(top[0]);
                st.pop();
            }
        }
        for (int i = post.size() - 1; i >= 0; i--) {
            rpoNum[post.get(i)] = rpo.size();
            rpo.add(post.get(i));
        }
        idom = new int[nb];
        java.util.Arrays.fill(idom, -1);
        idom[0] = 0;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int b : rpo) {
                if (b == 0) {
                    continue;
                }
                int d = -1;
                for (int p : pred.get(b)) {
                    if (rpoNum[p] >= 0 && idom[p] >= 0) {
                        d = d < 0 ? p : intersect(p, d);
                    }
                }
                if (d != idom[b]) {
                    idom[b] = d;
                    changed = true;
                }
            }
        }
        for (int b : rpo) {
            if (b != 0) {
                kids.get(idom[b]).add(b);
            }
        }
        size = new int[nb];
        for (int i = rpo.size() - 1; i >= 0; i--) {
            int b = rpo.get(i);
            int s = 0;
            for (int k = starts.get(b); k < end(b); k++) {
                if (insns[k].getOpcode() >= 0) {
                    s++;
                }
            }
            for (int c : kids.get(b)) {
                s += size[c];
            }
            size[b] = s;
        }
    }

    private int intersect(int a, int b) {
        while (a != b) {
            while (rpoNum[a] > rpoNum[b]) {
                a = idom[a];
            }
            while (rpoNum[b] > rpoNum[a]) {
                b = idom[b];
            }
        }
        return a;
    }

    /** Backward live-variable analysis on blocks: which locals a block's entry still reads. */
    private void liveness() {
        int nl = mn.maxLocals;
        BitSet[] use = new BitSet[nb];
        BitSet[] def = new BitSet[nb];
        liveIn = new BitSet[nb];
        for (int b = 0; b < nb; b++) {
            use[b] = new BitSet(nl);
            def[b] = new BitSet(nl);
            liveIn[b] = new BitSet(nl);
            for (int k = starts.get(b); k < end(b); k++) {
                int v = localOf(insns[k]);
                if (v < 0) {
                    continue;
                }
                if (reads(insns[k]) && !def[b].get(v)) {
                    use[b].set(v);
                }
                if (writes(insns[k])) {
                    def[b].set(v);
                }
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = rpo.size() - 1; i >= 0; i--) {
                int b = rpo.get(i);
                BitSet live = new BitSet(nl);
                for (int s : succ.get(b)) {
                    live.or(liveIn[s]);
                }
                live.andNot(def[b]);
                live.or(use[b]);
                if (!live.equals(liveIn[b])) {
                    liveIn[b] = live;
                    changed = true;
                }
            }
        }
    }

    private static int localOf(AbstractInsnNode i) {
        if (i instanceof VarInsnNode v) {
            return v.var;
        }
        return i instanceof IincInsnNode v ? v.var : -1;
    }

    private static boolean reads(AbstractInsnNode i) {
        return i instanceof IincInsnNode || (i instanceof VarInsnNode && i.getOpcode() < ISTORE);
    }

    private static boolean writes(AbstractInsnNode i) {
        return i instanceof IincInsnNode || (i instanceof VarInsnNode && i.getOpcode() >= ISTORE);
    }

    private boolean emptyStack(int b) {
        Frame<BasicValue> f = frames[starts.get(b)];
        return f != null && f.getStackSize() == 0;
    }

    private boolean candidate(int b) {
        return b != 0 && rpoNum[b] >= 0 && emptyStack(b) && size[b] >= MIN_INSNS;
    }

    /** The candidates in reverse postorder: the ids of a {@link Profile}. */
    List<Integer> candidates() {
        List<Integer> c = new ArrayList<>();
        for (int b : rpo) {
            if (candidate(b)) {
                c.add(b);
            }
        }
        return c;
    }

    private Set<Integer> region(int b) {
        Set<Integer> r = new TreeSet<>();
        Deque<Integer> w = new ArrayDeque<>();
        w.push(b);
        while (!w.isEmpty()) {
            int x = w.pop();
            r.add(x);
            for (int k : kids.get(x)) {
                w.push(k);
            }
        }
        return r;
    }

    /** Every edge leaving the region (or back to its entry) lands with an empty stack. */
    private boolean exitsClean(int b) {
        Set<Integer> r = region(b);
        for (int x : r) {
            for (int s : succ.get(x)) {
                if ((!r.contains(s) || s == b) && !emptyStack(s)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Adds a static long[] counter per candidate entry; returns the number of counters. */
    int instrument() {
        List<Integer> c = candidates();
        String field = counterField(mn.name);
        owner.fields.add(new FieldNode(ACC_PUBLIC | ACC_STATIC, field, "[J", null, null));
        for (int id = 0; id < c.size(); id++) {
            InsnList l = new InsnList();
            l.add(new FieldInsnNode(GETSTATIC, owner.name, field, "[J"));
            l.add(new LdcInsnNode(id));
            l.add(new InsnNode(DUP2));
            l.add(new InsnNode(LALOAD));
            l.add(new InsnNode(LCONST_1));
            l.add(new InsnNode(LADD));
            l.add(new InsnNode(LASTORE));
            mn.instructions.insert(insns[starts.get(c.get(id))], l);
        }
        allocateInClinit(field, c.size());
        return c.size();
    }

    /** Makes the class's static initializer allocate the counter array {@code field}. */
    private void allocateInClinit(String field, int length) {
        MethodNode clinit = null;
        for (MethodNode m : owner.methods) {
            if (m.name.equals("<clinit>")) {
                clinit = m;
            }
        }
        if (clinit == null) {
            clinit = new MethodNode(ACC_STATIC, "<clinit>", "()V", null, null);
            clinit.instructions.add(new InsnNode(RETURN));
            owner.methods.add(clinit);
        }
        InsnList init = new InsnList();
        init.add(new LdcInsnNode(length));
        init.add(new IntInsnNode(NEWARRAY, T_LONG));
        init.add(new FieldInsnNode(PUTSTATIC, owner.name, field, "[J"));
        clinit.instructions.insert(init);
    }

    /**
     * Adds a static long[] counter per block (the ids are the block numbers, in code order) for the
     * size step's profile ({@link SizeSplit#instrument}); {@code emptyStackOnly} counts only the
     * blocks entered with an empty operand stack (the only ones a region can start at) when a
     * counter on every block would take the method past the JVM's size limit. Returns the number of
     * counters.
     */
    int instrumentBlocks(boolean emptyStackOnly) {
        String field = counterField(mn.name);
        owner.fields.add(new FieldNode(ACC_PUBLIC | ACC_STATIC, field, "[J", null, null));
        // a call per block (3 to 6 bytes) keeps the huge methods under the JVM's limit
        MethodNode count =
                new MethodNode(
                        ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC,
                        "count$" + mn.name,
                        "(I)V",
                        null,
                        null);
        count.instructions.add(new FieldInsnNode(GETSTATIC, owner.name, field, "[J"));
        count.instructions.add(new VarInsnNode(ILOAD, 0));
        count.instructions.add(new InsnNode(DUP2));
        count.instructions.add(new InsnNode(LALOAD));
        count.instructions.add(new InsnNode(LCONST_1));
        count.instructions.add(new InsnNode(LADD));
        count.instructions.add(new InsnNode(LASTORE));
        count.instructions.add(new InsnNode(RETURN));
        owner.methods.add(count);
        for (int b = 0; b < nb; b++) {
            if (rpoNum[b] < 0 || (emptyStackOnly && !candidate(b))) {
                continue;
            }
            InsnList l = new InsnList();
            l.add(intConst(b));
            l.add(new MethodInsnNode(INVOKESTATIC, owner.name, count.name, "(I)V", false));
            mn.instructions.insert(firstLabel(b), l);
        }
        allocateInClinit(field, nb);
        return nb;
    }

    /** The number of blocks: the length of this method's counts in a size profile. */
    int blocks() {
        return nb;
    }

    /**
     * Records {@code counts} (one per block, as {@link #instrumentBlocks} numbers them) as the heat
     * of each block's first label.
     */
    void recordHeat(long[] counts) {
        if (counts.length != nb) {
            throw new IllegalStateException(
                    mn.name
                            + ": the size profile has "
                            + counts.length
                            + " blocks, the class has "
                            + nb
                            + ": the engine class changed, regenerate it with"
                            + " build/outline-profile.sh");
        }
        for (int b = 0; b < nb; b++) {
            heat.put(firstLabel(b), counts[b]);
        }
    }

    /**
     * How often block {@code b} ran in the training run: its label's count, or else (code the pass
     * wrote, such as a stub) its nearest dominator's; 0 without a profile.
     */
    private long heatOf(int b) {
        if (heat == null) {
            return 0;
        }
        for (int x = b; ; x = idom[x]) {
            Long h = heat.get(firstLabel(x));
            if (h != null) {
                return h;
            }
            if (x == 0 || idom[x] < 0 || idom[x] == x) {
                return Long.MAX_VALUE;
            }
        }
    }

    static String counterField(String method) {
        return "outlineCounts$" + method;
    }

    /**
     * Moves the cold regions out: top-down over the dominator tree, the first candidate whose count
     * is at most {@code coldCount}, whose size is at most {@link #MAX_INSNS} and whose exits land
     * on an empty stack becomes a region; otherwise its subtrees are tried. Returns the new methods
     * (the caller adds them to the class) and a one-line report.
     */
    List<MethodNode> outline(long[] counts, long coldCount, int groupInsns, StringBuilder report) {
        List<Integer> c = candidates();
        Map<Integer, Long> count = new HashMap<>();
        if (counts != null) {
            if (counts.length != c.size()) {
                throw new IllegalStateException(
                        mn.name
                                + ": the profile has "
                                + counts.length
                                + " candidate regions, the class has "
                                + c.size()
                                + ": the engine class changed, regenerate the profile with"
                                + " build/outline-profile.sh");
            }
            for (int i = 0; i < c.size(); i++) {
                count.put(c.get(i), counts[i]);
            }
        }
        int before = realInsns();
        List<Integer> chosen = new ArrayList<>();
        Deque<Integer> work = new ArrayDeque<>();
        work.push(0);
        while (!work.isEmpty()) {
            int b = work.pop();
            boolean cold = counts == null || count.getOrDefault(b, Long.MAX_VALUE) <= coldCount;
            if (candidate(b) && cold && size[b] <= MAX_INSNS && exitsClean(b)) {
                chosen.add(b);
                continue;
            }
            List<Integer> k = kids.get(b);
            for (int i = k.size() - 1; i >= 0; i--) {
                work.push(k.get(i));
            }
        }
        List<List<Integer>> groups = new ArrayList<>();
        List<Integer> cur = new ArrayList<>();
        int curSize = 0;
        for (int b : chosen) {
            List<Integer> trial = new ArrayList<>(cur);
            trial.add(b);
            if (!cur.isEmpty() && (curSize + size[b] > groupInsns || params(trial) == null)) {
                groups.add(cur);
                cur = new ArrayList<>();
                curSize = 0;
            }
            cur.add(b);
            curSize += size[b];
        }
        if (!cur.isEmpty()) {
            groups.add(cur);
        }
        List<MethodNode> out = new ArrayList<>();
        int moved = 0;
        for (List<Integer> g : groups) {
            out.add(extract(g, out.size()));
            for (int b : g) {
                moved += size[b];
            }
        }
        mn.instructions.add(tail);
        if (tmpSlot >= 0) {
            // one scratch array per call of the method, shared by every stub (each reads it
            // right after its call; a recursive call has its own), not one per region call
            InsnList init = new InsnList();
            init.add(intConst(scratchLength));
            init.add(new IntInsnNode(NEWARRAY, T_LONG));
            init.add(new VarInsnNode(ASTORE, tmpSlot));
            mn.instructions.insert(init);
        }
        report.append(
                String.format(
                        "%s: %d of %d instructions moved, in %d regions, into %d methods; %d"
                                + " remain (%d of them call stubs)%n",
                        mn.name,
                        moved,
                        before,
                        chosen.size(),
                        groups.size(),
                        realInsns(),
                        stubInsns));
        return out;
    }

    /**
     * The size mode ({@link SizeSplit}): moves one region out of this method, whose code is {@code
     * currentBytes} bytes, into a new method {@code name}; returns it (the caller adds it to the
     * class), or null when no region can move. The region is the largest movable one whose new
     * method would fit in {@code maxBytes}; failing that, the largest one that still leaves this
     * method smaller (the new method is then split in turn). Locals written in the region come back
     * in the method's scratch array: the memory's shared one when {@code memorySlot} is the
     * method's memory parameter (the array {@link InlineAccesses#shareScratch} gives the other
     * outlined methods), else one the method allocates on entry.
     */
    MethodNode splitOne(int maxBytes, int currentBytes, String name, int memorySlot) {
        sizeMode = true;
        AbstractInsnNode[] head = new AbstractInsnNode[4];
        int h = 0;
        for (AbstractInsnNode i = mn.instructions.getFirst(); i != null && h < 4; i = i.getNext()) {
            if (i.getOpcode() >= 0) {
                head[h++] = i;
            }
        }
        int existing = -1;
        AbstractInsnNode lengthNode = null;
        boolean shared = memorySlot >= 0;
        if (h == 4
                && head[0] instanceof VarInsnNode m0
                && m0.getOpcode() == ALOAD
                && head[1].getOpcode() == CHECKCAST
                && head[2] instanceof FieldInsnNode f
                && f.name.equals("scratch")
                && f.owner.equals(InlineAccesses.BLOCK_MEMORY)
                && head[3] instanceof VarInsnNode v
                && v.getOpcode() == ASTORE) {
            existing = v.var;
            shared = true;
        } else if (h >= 3
                && scratchLength(head[0]) >= 0
                && head[1] instanceof IntInsnNode a
                && a.getOpcode() == NEWARRAY
                && a.operand == T_LONG
                && head[2] instanceof VarInsnNode v
                && v.getOpcode() == ASTORE) {
            existing = v.var;
            lengthNode = head[0];
            shared = false;
        }
        int[] bytes = subtreeBytes();
        List<Integer> order = candidates();
        long[] hot = new long[nb];
        for (int b : order) {
            hot[b] = !bySize && heatOf(b) > hotCount ? 1 : 0;
        }
        order.sort(
                (x, y) ->
                        hot[x] != hot[y]
                                ? Long.compare(hot[x], hot[y])
                                : bytes[y] != bytes[x]
                                        ? bytes[y] - bytes[x]
                                        : rpoNum[x] - rpoNum[y]);
        // Regions fill one new method, largest first (with a size profile, the ones that are not
        // hot before the hot), until this method would fit: several of them share it behind an
        // entry switch (a loop's
        // many small case bodies, each already a call stub, move together for a few bytes of stub
        // each). Each entry into a moved region is a call, so the hot code stays where it is.
        int need = currentBytes - maxBytes + MARGIN;
        List<Integer> group = new ArrayList<>();
        Set<Integer> inGroup = new HashSet<>();
        int groupBytes = 0;
        int gain = 0;
        int fallback = -1;
        for (int b : order) {
            if (bytes[b] < MIN_GROUP_BYTES || inGroup.contains(b) || !exitsClean(b)) {
                continue;
            }
            Set<Integer> r = region(b);
            if (group.stream().anyMatch(r::contains)) {
                continue;
            }
            if (bytes[b] > maxBytes) {
                if (fallback < 0) {
                    int[] c = cost(List.of(b), shared);
                    if (c != null && bytes[b] + c[0] < currentBytes - MARGIN) {
                        fallback = b;
                    }
                }
                continue;
            }
            List<Integer> trial = new ArrayList<>(group);
            trial.add(b);
            int[] c = cost(trial, shared);
            if (c == null || groupBytes + bytes[b] + c[0] > maxBytes) {
                continue;
            }
            group = trial;
            inGroup.addAll(r);
            groupBytes += bytes[b];
            gain = groupBytes - c[1];
            if (gain >= need) {
                break;
            }
        }
        if (DEBUG) {
            System.err.printf(
                    "%s %d: %d regions (%d bytes, gain %d) fallback %d (%d) of %d candidates%n",
                    mn.name,
                    currentBytes,
                    group.size(),
                    groupBytes,
                    gain,
                    fallback,
                    fallback < 0 ? 0 : bytes[fallback],
                    order.size());
        }
        if (group.isEmpty() || gain < MARGIN) {
            if (fallback < 0) {
                return null;
            }
            group = new ArrayList<>(List.of(fallback));
        }
        if (existing >= 0) {
            tmpSlot = existing;
        }
        group.sort((x, y) -> rpoNum[x] - rpoNum[y]);
        regionsMoved = group.size();
        hotMoved = (int) group.stream().filter(b -> heatOf(b) > hotCount).count();
        MethodNode out = extract(group, name);
        mn.instructions.add(tail);
        if (tmpSlot >= 0 && existing < 0) {
            InsnList init = new InsnList();
            if (shared) {
                init.add(new VarInsnNode(ALOAD, memorySlot));
                init.add(new TypeInsnNode(CHECKCAST, InlineAccesses.BLOCK_MEMORY));
                init.add(new FieldInsnNode(GETFIELD, InlineAccesses.BLOCK_MEMORY, "scratch", "[J"));
            } else {
                init.add(new IntInsnNode(NEWARRAY, T_LONG));
                init.insert(intConst(scratchLength));
            }
            init.add(new VarInsnNode(ASTORE, tmpSlot));
            mn.instructions.insert(init);
        } else if (lengthNode != null && scratchLength > scratchLength(lengthNode)) {
            mn.instructions.set(lengthNode, intConst(scratchLength));
        }
        return out;
    }

    /**
     * Makes every block entry that has values on the operand stack (Chicory keeps a wasm block's
     * results there across branches, so such code has no candidate region) start with an empty one:
     * each predecessor stores the values it carries into locals kept for their stack positions,
     * below a branch's own operands, and the block loads them back. The same values flow, through
     * locals instead of the stack. Blocks carrying a reference are left as they are. Returns
     * whether anything changed; the splitter must then be made again.
     */
    boolean spillStacks() {
        Map<Integer, Integer> spill = new HashMap<>();
        Map<Integer, Integer> temp = new HashMap<>();
        int[] next = {InlineAccesses.localsUsed(mn)};
        boolean changed = false;
        for (int b : rpo) {
            if (b == 0 || emptyStack(b)) {
                continue;
            }
            Frame<BasicValue> f = frames[starts.get(b)];
            if (f == null || !primitive(f, 0, f.getStackSize())) {
                continue;
            }
            InsnList load = new InsnList();
            for (int i = 0; i < f.getStackSize(); i++) {
                Type t = f.getStack(i).getType();
                load.add(new VarInsnNode(t.getOpcode(ILOAD), local(spill, i, t, next)));
            }
            mn.instructions.insert(insns[starts.get(b)], load);
            changed = true;
        }
        for (int p : rpo) {
            AbstractInsnNode x = insns[end(p) - 1];
            int depth = -1;
            for (int s : succ.get(p)) {
                Frame<BasicValue> f = frames[starts.get(s)];
                if (f != null && f.getStackSize() > 0 && primitive(f, 0, f.getStackSize())) {
                    depth = f.getStackSize();
                }
            }
            if (depth < 0) {
                continue;
            }
            int ops = operands(x);
            Frame<BasicValue> at = frames[end(p) - 1];
            InsnList st = new InsnList();
            if (ops < 0) {
                // falls through into the block: the carried values are all that is on the stack
                at = frames[starts.get(p + 1)];
                ops = 0;
            }
            int top = at.getStackSize();
            for (int i = top - 1; i >= top - ops; i--) {
                Type t = at.getStack(i).getType();
                st.add(new VarInsnNode(t.getOpcode(ISTORE), local(temp, i, t, next)));
            }
            for (int i = depth - 1; i >= 0; i--) {
                Type t = at.getStack(i).getType();
                st.add(new VarInsnNode(t.getOpcode(ISTORE), local(spill, i, t, next)));
            }
            for (int i = top - ops; i < top; i++) {
                Type t = at.getStack(i).getType();
                st.add(new VarInsnNode(t.getOpcode(ILOAD), local(temp, i, t, next)));
            }
            if (operands(x) < 0) {
                // before the next block's label: after this block's own loads, if it has any
                mn.instructions.insertBefore(insns[starts.get(p + 1)], st);
            } else {
                mn.instructions.insertBefore(x, st);
            }
        }
        mn.maxLocals = Math.max(mn.maxLocals, next[0]);
        return changed;
    }

    private static boolean primitive(Frame<BasicValue> f, int from, int to) {
        for (int i = from; i < to; i++) {
            Type t = f.getStack(i).getType();
            if (t == null || t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY) {
                return false;
            }
        }
        return true;
    }

    private static int local(Map<Integer, Integer> m, int pos, Type t, int[] next) {
        return m.computeIfAbsent(
                pos * 16 + t.getSort(),
                k -> {
                    int l = next[0];
                    next[0] += t.getSize();
                    return l;
                });
    }

    /** The operands a block's last instruction takes off the stack to branch, -1 for none. */
    private static int operands(AbstractInsnNode x) {
        int op = x.getOpcode();
        if (op == GOTO) {
            return 0;
        }
        if (op == TABLESWITCH || op == LOOKUPSWITCH || (op >= IFEQ && op <= IFLE)) {
            return 1;
        }
        if (op == IFNULL || op == IFNONNULL) {
            return 1;
        }
        if (op >= IF_ICMPEQ && op <= IF_ACMPNE) {
            return 2;
        }
        return -1;
    }

    /** The constant {@code i} pushes, or -1 when it is no small int constant. */
    private static int scratchLength(AbstractInsnNode i) {
        if (i instanceof IntInsnNode c && (c.getOpcode() == BIPUSH || c.getOpcode() == SIPUSH)) {
            return c.operand;
        }
        int op = i.getOpcode();
        return op >= ICONST_0 && op <= ICONST_5 ? op - ICONST_0 : -1;
    }

    /**
     * For a region that can move on its own: the bytes its new method adds around it (loading the
     * arguments, storing what comes back at each exit) and the bytes of its stub in this method.
     * Null when it cannot move: an exit onto a stack, an argument unassigned at its entry or a
     * reference of no known type, a reference written and live after it, or (with the shared
     * scratch array) more locals to return than the array holds.
     */
    private int[] cost(List<Integer> entries, boolean shared) {
        for (int b : entries) {
            if (!candidate(b)) {
                return null;
            }
        }
        TreeSet<Integer> p = params(entries);
        if (p == null) {
            return null;
        }
        if (entries.size() > 1 && !entriesAgree(entries)) {
            return null;
        }
        Frame<BasicValue> f = frames[starts.get(entries.get(0))];
        for (int l : p) {
            int sort = f.getLocal(l).getType().getSort();
            if ((sort == Type.OBJECT || sort == Type.ARRAY) && knownRefType(l) == null) {
                if (DEBUG) {
                    System.err.println("   unknown ref " + l);
                }
                return null;
            }
        }
        Set<Integer> reg = new HashSet<>();
        for (int b : entries) {
            reg.addAll(region(b));
        }
        BitSet liveOut = liveOut(reg);
        Set<Integer> back = new HashSet<>();
        Set<Integer> exits = new HashSet<>();
        int returns = 0;
        for (int x : reg) {
            for (int k = starts.get(x); k < end(x); k++) {
                AbstractInsnNode i = insns[k];
                if (writes(i) && liveOut.get(localOf(i))) {
                    if (i.getOpcode() == ASTORE && aliasOf(localOf(i), 0) < 0) {
                        if (DEBUG) {
                            System.err.println(
                                    "   ref written "
                                            + localOf(i)
                                            + " after "
                                            + i.getPrevious().getOpcode()
                                            + " "
                                            + i.getPrevious().getPrevious().getOpcode()
                                            + " in block "
                                            + x
                                            + " entry "
                                            + entries);
                        }
                        return null;
                    }
                    if (i.getOpcode() != ASTORE) {
                        back.add(localOf(i));
                    }
                }
                if (i.getOpcode() >= IRETURN && i.getOpcode() <= RETURN) {
                    returns++;
                }
            }
            for (int s : succ.get(x)) {
                if (!reg.contains(s)) {
                    exits.add(s);
                }
            }
        }
        if (shared && back.size() + 1 > Outliner.SCRATCH_SLOTS) {
            return null;
        }
        int k = entries.size() > 1 ? entries.size() : 0;
        int around = 8 * p.size() + 12 * returns + 4 * k + 16;
        for (int t : exits) {
            around += 4;
            for (int l : back) {
                if (liveIn[t].get(l)) {
                    around += 8;
                }
            }
        }
        int stub = 4 * p.size() + 8 + 7 * back.size() + 16 + 4 * (exits.size() + 1) + 5 * k;
        return new int[] {around, stub};
    }

    /**
     * Whether the entries of a group of regions agree on every local live after the group: each
     * holds the same kind of value at every entry (a reference one of known type). The entries
     * share one stub, so the verifier merges their frames there and at every exit after it: a local
     * live at an exit that one entry has unassigned (a region that never goes there) would be
     * unassigned after the stub for all of them.
     */
    private boolean entriesAgree(List<Integer> entries) {
        Set<Integer> reg = new HashSet<>();
        for (int b : entries) {
            reg.addAll(region(b));
        }
        BitSet live = liveOut(reg);
        Frame<BasicValue> first = frames[starts.get(entries.get(0))];
        for (int l = live.nextSetBit(0); l >= 0; l = live.nextSetBit(l + 1)) {
            BasicValue v = first.getLocal(l);
            if (!assigned(v)) {
                return false;
            }
            int sort = v.getType().getSort();
            if ((sort == Type.OBJECT || sort == Type.ARRAY) && knownRefType(l) == null) {
                return false;
            }
            for (int b : entries) {
                if (!v.equals(frames[starts.get(b)].getLocal(l))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The bytes of each block's dominator subtree, as {@link #insnBytes} counts them. */
    private int[] subtreeBytes() {
        int[] bytes = new int[nb];
        for (int i = rpo.size() - 1; i >= 0; i--) {
            int b = rpo.get(i);
            int s = 0;
            for (int k = starts.get(b); k < end(b); k++) {
                s += insnBytes(insns[k]);
            }
            for (int c : kids.get(b)) {
                s += bytes[c];
            }
            bytes[b] = s;
        }
        return bytes;
    }

    /**
     * An instruction's length in the class file as the class writer lays it out (a switch with its
     * most padding); close enough to choose regions by, the caller measures the result.
     */
    static int insnBytes(AbstractInsnNode i) {
        int op = i.getOpcode();
        if (op < 0) {
            return 0;
        }
        if (i instanceof VarInsnNode v) {
            return v.var < 4 ? 1 : v.var < 256 ? 2 : 4;
        }
        if (i instanceof IincInsnNode v) {
            return v.var < 256 && v.incr >= Byte.MIN_VALUE && v.incr <= Byte.MAX_VALUE ? 3 : 6;
        }
        if (i instanceof IntInsnNode) {
            return op == SIPUSH ? 3 : 2;
        }
        if (i instanceof TableSwitchInsnNode t) {
            return 16 + 4 + 4 * t.labels.size();
        }
        if (i instanceof LookupSwitchInsnNode t) {
            return 12 + 4 + 8 * t.labels.size();
        }
        if (i instanceof LdcInsnNode) {
            return 3;
        }
        if (op == INVOKEINTERFACE || op == INVOKEDYNAMIC) {
            return 5;
        }
        if (op == MULTIANEWARRAY) {
            return 4;
        }
        if (i instanceof JumpInsnNode
                || i instanceof FieldInsnNode
                || i instanceof MethodInsnNode
                || i instanceof TypeInsnNode) {
            return 3;
        }
        return 1;
    }

    private int realInsns() {
        int r = 0;
        for (AbstractInsnNode x : mn.instructions) {
            if (x.getOpcode() >= 0) {
                r++;
            }
        }
        return r;
    }

    private static boolean assigned(BasicValue v) {
        return v != null && v != BasicValue.UNINITIALIZED_VALUE && v.getType() != null;
    }

    /**
     * The locals a group of regions takes as arguments: those an entry reads before writing, and
     * those a region writes that are live after it (passed in so that a region that leaves one
     * unwritten writes back the value it had). Null if some entry has one of them unassigned.
     */
    private TreeSet<Integer> params(List<Integer> entries) {
        TreeSet<Integer> p = new TreeSet<>();
        Set<Integer> reg = new HashSet<>();
        for (int b : entries) {
            reg.addAll(region(b));
        }
        TreeSet<Integer> written = new TreeSet<>();
        for (int b : entries) {
            for (int x : region(b)) {
                for (int k = starts.get(x); k < end(x); k++) {
                    int v = localOf(insns[k]);
                    if (v >= 0 && liveIn[b].get(v)) {
                        p.add(v);
                    }
                    if (v >= 0 && writes(insns[k])) {
                        written.add(v);
                    }
                }
            }
        }
        BitSet liveOut = liveOut(reg);
        for (int l : written) {
            if (liveOut.get(l)) {
                p.add(l);
            }
        }
        for (int b : entries) {
            Frame<BasicValue> f = frames[starts.get(b)];
            for (int l : p) {
                if (!assigned(f.getLocal(l))) {
                    return null;
                }
            }
        }
        return p;
    }

    private BitSet liveOut(Set<Integer> reg) {
        BitSet live = new BitSet();
        for (int x : reg) {
            for (int s : succ.get(x)) {
                if (!reg.contains(s)) {
                    live.or(liveIn[s]);
                }
            }
        }
        return live;
    }

    /**
     * Moves a group of regions into one new method {@code NAME$coldN(I entry?, params..., long[]
     * out?)I}. It returns the index of the exit taken (an edge to a block outside the regions) or
     * the exit count for a return, whose value it leaves in out's last slot; the locals the regions
     * wrote that are live after them come back in out. The caller's stub reloads them and
     * dispatches on the index.
     */
    private MethodNode extract(List<Integer> entries, int seq) {
        return extract(entries, mn.name + "$cold" + seq);
    }

    private MethodNode extract(List<Integer> entries, String name) {
        Set<Integer> reg = new TreeSet<>();
        for (int e : entries) {
            reg.addAll(region(e));
        }
        boolean multi = entries.size() > 1;
        Type ret = Type.getReturnType(mn.desc);
        Frame<BasicValue> fin = frames[starts.get(entries.get(0))];
        TreeSet<Integer> gp = params(entries);
        if (gp == null) {
            throw new IllegalStateException(mn.name + ": region group without its locals");
        }
        Map<Integer, Type> wtype = new HashMap<>();
        boolean hasReturn = false;
        // size mode: constant returns, each an exit index past the value return's
        Map<Integer, Integer> constReturns = new TreeMap<>();
        boolean valueReturn = false;
        for (int x : reg) {
            for (int k = starts.get(x); k < end(x); k++) {
                AbstractInsnNode i = insns[k];
                int op = i.getOpcode();
                if (writes(i)) {
                    wtype.put(localOf(i), storeType(op));
                }
                hasReturn |= op >= IRETURN && op <= RETURN;
                if (op >= IRETURN && op < RETURN) {
                    if (constReturn(k, ret) != null) {
                        constReturns.putIfAbsent(constReturn(k, ret), constReturns.size());
                    } else {
                        valueReturn = true;
                    }
                }
            }
        }
        List<Integer> exits = new ArrayList<>();
        for (int x : reg) {
            for (int s : succ.get(x)) {
                if (!reg.contains(s) && !exits.contains(s)) {
                    exits.add(s);
                }
            }
        }
        exits.sort(null);
        BitSet liveOut = liveOut(reg);
        List<Integer> params = new ArrayList<>(gp);
        List<Type> ptypes = new ArrayList<>();
        for (int l : params) {
            Type t = fin.getLocal(l).getType();
            ptypes.add(t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY ? refType(l) : t);
        }
        List<Integer> back = new ArrayList<>();
        List<Integer> copies = new ArrayList<>();
        for (int l : new TreeSet<>(wtype.keySet())) {
            if (liveOut.get(l)) {
                if (wtype.get(l).getSort() == Type.OBJECT && aliasOf(l, 0) >= 0) {
                    copies.add(l);
                    continue;
                }
                if (wtype.get(l).getSort() == Type.OBJECT) {
                    throw new IllegalStateException(
                            mn.name + ": a region writes reference local " + l);
                }
                back.add(l);
            }
        }
        boolean needOut = !back.isEmpty() || valueReturn;
        int shift = multi ? 1 : 0;
        StringBuilder desc = new StringBuilder(multi ? "(I" : "(");
        for (Type t : ptypes) {
            desc.append(t.getDescriptor());
            shift += t.getSize();
        }
        int outParam = shift;
        if (needOut) {
            desc.append("[J");
            shift++;
        }
        desc.append(")I");
        MethodNode om =
                new MethodNode(
                        ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC,
                        name,
                        desc.toString(),
                        null,
                        null);
        InsnList o = om.instructions;
        // prologue: arguments into the original local slots, shifted past the parameters
        int slot = multi ? 1 : 0;
        for (int i = 0; i < params.size(); i++) {
            Type t = ptypes.get(i);
            o.add(new VarInsnNode(t.getOpcode(ILOAD), slot));
            o.add(new VarInsnNode(t.getOpcode(ISTORE), params.get(i) + shift));
            slot += t.getSize();
        }
        Map<Integer, LabelNode> exitLabel = new HashMap<>();
        for (int t : exits) {
            exitLabel.put(t, new LabelNode());
        }
        Map<LabelNode, LabelNode> labels = new HashMap<>();
        for (AbstractInsnNode i : insns) {
            if (i instanceof LabelNode l) {
                int blk = labelBlock.get(l);
                LabelNode copy =
                        reg.contains(blk)
                                ? new LabelNode()
                                : exitLabel.getOrDefault(blk, new LabelNode());
                labels.put(l, copy);
                if (heat != null && reg.contains(blk) && heat.containsKey(l)) {
                    heat.put(copy, heat.get(l));
                }
            }
        }
        int retIndex = exits.size();
        if (multi) {
            LabelNode[] el = new LabelNode[entries.size()];
            for (int i = 0; i < el.length; i++) {
                el[i] = labels.get((LabelNode) insns[starts.get(entries.get(i))]);
            }
            o.add(new VarInsnNode(ILOAD, 0));
            o.add(new TableSwitchInsnNode(0, el.length - 1, el[el.length - 1], el));
        }
        for (int x : reg) {
            for (int k = starts.get(x); k < end(x); k++) {
                AbstractInsnNode i = insns[k];
                int op = i.getOpcode();
                Integer constant = k + 1 < end(x) ? constReturn(k + 1, ret) : null;
                if (constant != null) {
                    o.add(intConst(retIndex + 1 + constReturns.get(constant)));
                    o.add(new InsnNode(IRETURN));
                    k++;
                    continue;
                }
                if (op >= IRETURN && op <= RETURN) {
                    if (op != RETURN) {
                        storeReturnValue(o, ret, back.size(), outParam);
                    }
                    o.add(intConst(retIndex));
                    o.add(new InsnNode(IRETURN));
                    continue;
                }
                AbstractInsnNode c = i.clone(labels);
                if (c instanceof VarInsnNode v) {
                    v.var += shift;
                } else if (c instanceof IincInsnNode v) {
                    v.var += shift;
                }
                o.add(c);
            }
            int op = insns[end(x) - 1].getOpcode();
            if (!isTerminal(op) && x + 1 < nb && !reg.contains(x + 1)) {
                o.add(new JumpInsnNode(GOTO, exitLabel.get(x + 1)));
            }
        }
        for (int e = 0; e < exits.size(); e++) {
            int t = exits.get(e);
            o.add(exitLabel.get(t));
            for (int j = 0; j < back.size(); j++) {
                int l = back.get(j);
                if (!liveIn[t].get(l)) {
                    continue;
                }
                Type ty = wtype.get(l);
                o.add(new VarInsnNode(ALOAD, outParam));
                o.add(intConst(j));
                o.add(new VarInsnNode(ty.getOpcode(ILOAD), l + shift));
                toLong(o, ty);
                o.add(new InsnNode(LASTORE));
            }
            o.add(intConst(e));
            o.add(new InsnNode(IRETURN));
        }
        // The caller's stub: call, reload what came back, dispatch on the exit index.
        InsnList s = new InsnList();
        int tmp = -1;
        if (needOut) {
            tmp = tmpSlot();
            scratchLength = Math.max(scratchLength, back.size() + 1);
        }
        for (int i = 0; i < params.size(); i++) {
            s.add(new VarInsnNode(ptypes.get(i).getOpcode(ILOAD), params.get(i)));
        }
        if (needOut) {
            s.add(new VarInsnNode(ALOAD, tmp));
        }
        s.add(new MethodInsnNode(INVOKESTATIC, owner.name, name, desc.toString(), false));
        for (int j = 0; j < back.size(); j++) {
            Type ty = wtype.get(back.get(j));
            s.add(new VarInsnNode(ALOAD, tmp));
            s.add(intConst(j));
            s.add(new InsnNode(LALOAD));
            fromLong(s, ty);
            s.add(new VarInsnNode(ty.getOpcode(ISTORE), back.get(j)));
        }
        // a reference local that only ever holds a parameter is assigned it again, not carried
        for (int l : copies) {
            s.add(new VarInsnNode(ALOAD, aliasOf(l, 0)));
            s.add(new VarInsnNode(ASTORE, l));
        }
        LabelNode retCase = new LabelNode();
        if (exits.isEmpty() && constReturns.isEmpty()) {
            s.add(new InsnNode(POP));
            s.add(new JumpInsnNode(GOTO, retCase));
        } else if (exits.size() == 1 && !hasReturn) {
            s.add(new InsnNode(POP));
            s.add(new JumpInsnNode(GOTO, firstLabel(exits.get(0))));
        } else {
            LabelNode[] cases = new LabelNode[exits.size() + 1 + constReturns.size()];
            for (int e = 0; e < exits.size(); e++) {
                cases[e] = firstLabel(exits.get(e));
            }
            cases[retIndex] = retCase;
            InsnList constCases = new InsnList();
            for (Map.Entry<Integer, Integer> c : constReturns.entrySet()) {
                LabelNode l = new LabelNode();
                cases[retIndex + 1 + c.getValue()] = l;
                constCases.add(l);
                constCases.add(intConst(c.getKey()));
                constCases.add(new InsnNode(IRETURN));
            }
            s.add(new TableSwitchInsnNode(0, cases.length - 1, retCase, cases));
            s.add(constCases);
        }
        s.add(retCase);
        if (ret.getSort() == Type.VOID) {
            s.add(new InsnNode(RETURN));
        } else if (!valueReturn) {
            // unreachable: the outlined code has no return
            s.add(new InsnNode(ACONST_NULL));
            s.add(new InsnNode(ATHROW));
        } else {
            s.add(new VarInsnNode(ALOAD, tmp));
            s.add(intConst(back.size()));
            s.add(new InsnNode(LALOAD));
            fromLong(s, ret);
            s.add(new InsnNode(ret.getOpcode(IRETURN)));
        }
        for (int x : reg) {
            for (int k = starts.get(x); k < end(x); k++) {
                if (insns[k].getOpcode() >= 0) {
                    mn.instructions.remove(insns[k]);
                }
            }
        }
        for (AbstractInsnNode i : s) {
            if (i.getOpcode() >= 0) {
                stubInsns++;
            }
        }
        if (!multi) {
            mn.instructions.insert(insns[starts.get(entries.get(0))], s);
            return om;
        }
        // several entries share one stub at the method's end: each pushes its index and jumps
        LabelNode shared = new LabelNode();
        for (int i = 0; i < entries.size(); i++) {
            InsnList en = new InsnList();
            en.add(intConst(i));
            en.add(new JumpInsnNode(GOTO, shared));
            stubInsns += 2;
            mn.instructions.insert(insns[starts.get(entries.get(i))], en);
        }
        tail.add(shared);
        tail.add(s);
        return om;
    }

    /**
     * In the size mode, for an {@code ireturn} at {@code k} right after an int constant (no label
     * between) in a method returning int: the constant; else null.
     */
    private Integer constReturn(int k, Type ret) {
        if (!sizeMode
                || ret.getSort() != Type.INT
                || k < 1
                || insns[k].getOpcode() != IRETURN
                || blockOf[k - 1] != blockOf[k]) {
            return null;
        }
        AbstractInsnNode c = insns[k - 1];
        int op = c.getOpcode();
        if (op >= ICONST_M1 && op <= ICONST_5) {
            return op - ICONST_0;
        }
        if (c instanceof IntInsnNode i && (op == BIPUSH || op == SIPUSH)) {
            return i.operand;
        }
        if (c instanceof LdcInsnNode l && l.cst instanceof Integer v) {
            return v;
        }
        return null;
    }

    private int tmpSlot() {
        if (tmpSlot < 0) {
            tmpSlot = mn.maxLocals;
            mn.maxLocals += 1;
        }
        return tmpSlot;
    }

    private LabelNode firstLabel(int b) {
        return (LabelNode) insns[starts.get(b)];
    }

    private Type refType(int local) {
        Type t = knownRefType(local);
        if (t == null) {
            throw new IllegalStateException(
                    mn.name + ": reference local " + local + " is not a parameter");
        }
        return t;
    }

    /**
     * The type of reference local {@code local}: a parameter's declared type, or (for a local the
     * passes made) the one type every store to it has: a parameter copied in, a field read, a cast
     * or a new {@code long[]}. Null when it is none of those.
     */
    private Type knownRefType(int local) {
        return knownRefType(local, 0);
    }

    private Type knownRefType(int local, int depth) {
        Type param = paramType(local);
        if (depth > 4) {
            return param;
        }
        Type found = null;
        for (AbstractInsnNode i : mn.instructions) {
            if (!(i instanceof VarInsnNode v) || v.var != local || v.getOpcode() != ASTORE) {
                continue;
            }
            Type t = storedType(i.getPrevious(), depth);
            if (t == null || (found != null && !found.equals(t))) {
                return null;
            }
            found = t;
        }
        if (param != null) {
            return found == null || found.equals(param) ? param : null;
        }
        return found;
    }

    /**
     * The parameter slot reference local {@code local} always holds a copy of (every store to it is
     * a load of that parameter or of another such copy, and nothing stores to the parameter), or
     * -1.
     */
    private int aliasOf(int local, int depth) {
        Integer known = aliases.get(local);
        if (known == null) {
            known = findAlias(local, depth);
            if (depth == 0) {
                aliases.put(local, known);
            }
        }
        return known;
    }

    private final Map<Integer, Integer> aliases = new HashMap<>();

    private int findAlias(int local, int depth) {
        if (depth > 4) {
            return -1;
        }
        int found = -1;
        boolean stored = false;
        for (AbstractInsnNode i : mn.instructions) {
            if (!(i instanceof VarInsnNode v) || v.var != local || v.getOpcode() != ASTORE) {
                continue;
            }
            stored = true;
            if (!(i.getPrevious() instanceof VarInsnNode from) || from.getOpcode() != ALOAD) {
                return -1;
            }
            int p =
                    paramType(from.var) != null && !storedTo(from.var)
                            ? from.var
                            : aliasOf(from.var, depth + 1);
            if (p < 0 || (found >= 0 && found != p)) {
                return -1;
            }
            found = p;
        }
        return stored ? found : -1;
    }

    private boolean storedTo(int local) {
        for (AbstractInsnNode i : mn.instructions) {
            if (i instanceof VarInsnNode v && v.var == local && v.getOpcode() >= ISTORE) {
                return true;
            }
        }
        return false;
    }

    private Type paramType(int local) {
        int s = 0;
        for (Type t : Type.getArgumentTypes(mn.desc)) {
            if (s == local) {
                return t;
            }
            s += t.getSize();
        }
        return null;
    }

    private Type storedType(AbstractInsnNode p, int depth) {
        if (p == null) {
            return null;
        }
        if (p instanceof VarInsnNode v && v.getOpcode() == ALOAD) {
            return knownRefType(v.var, depth + 1);
        }
        if (p instanceof FieldInsnNode f
                && (f.getOpcode() == GETFIELD || f.getOpcode() == GETSTATIC)) {
            Type t = Type.getType(f.desc);
            return t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY ? t : null;
        }
        if (p instanceof TypeInsnNode c && c.getOpcode() == CHECKCAST) {
            return Type.getObjectType(c.desc);
        }
        if (p instanceof IntInsnNode a && a.getOpcode() == NEWARRAY && a.operand == T_LONG) {
            return Type.getType("[J");
        }
        return null;
    }

    private static Type storeType(int op) {
        return switch (op) {
            case ISTORE, IINC -> Type.INT_TYPE;
            case LSTORE -> Type.LONG_TYPE;
            case FSTORE -> Type.FLOAT_TYPE;
            case DSTORE -> Type.DOUBLE_TYPE;
            default -> Type.getObjectType("java/lang/Object");
        };
    }

    /** Stack: value -> (nothing), the value converted to long in out[slot]. */
    private static void storeReturnValue(InsnList o, Type ret, int slot, int outParam) {
        toLong(o, ret);
        o.add(new VarInsnNode(ALOAD, outParam));
        o.add(new InsnNode(DUP_X2));
        o.add(new InsnNode(POP));
        o.add(intConst(slot));
        o.add(new InsnNode(DUP_X2));
        o.add(new InsnNode(POP));
        o.add(new InsnNode(LASTORE));
    }

    private static void toLong(InsnList o, Type t) {
        switch (t.getSort()) {
            case Type.INT, Type.BOOLEAN, Type.BYTE, Type.CHAR, Type.SHORT ->
                    o.add(new InsnNode(I2L));
            case Type.LONG -> {}
            case Type.FLOAT -> {
                o.add(
                        new MethodInsnNode(
                                INVOKESTATIC,
                                "java/lang/Float",
                                "floatToRawIntBits",
                                "(F)I",
                                false));
                o.add(new InsnNode(I2L));
            }
            case Type.DOUBLE ->
                    o.add(
                            new MethodInsnNode(
                                    INVOKESTATIC,
                                    "java/lang/Double",
                                    "doubleToRawLongBits",
                                    "(D)J",
                                    false));
            default -> throw new IllegalStateException("cannot carry a " + t + " in a long");
        }
    }

    private static void fromLong(InsnList o, Type t) {
        switch (t.getSort()) {
            case Type.INT, Type.BOOLEAN, Type.BYTE, Type.CHAR, Type.SHORT ->
                    o.add(new InsnNode(L2I));
            case Type.LONG -> {}
            case Type.FLOAT -> {
                o.add(new InsnNode(L2I));
                o.add(
                        new MethodInsnNode(
                                INVOKESTATIC, "java/lang/Float", "intBitsToFloat", "(I)F", false));
            }
            case Type.DOUBLE ->
                    o.add(
                            new MethodInsnNode(
                                    INVOKESTATIC,
                                    "java/lang/Double",
                                    "longBitsToDouble",
                                    "(J)D",
                                    false));
            default -> throw new IllegalStateException("cannot carry a " + t + " in a long");
        }
    }

    private static AbstractInsnNode intConst(int v) {
        if (v >= -1 && v <= 5) {
            return new InsnNode(ICONST_0 + v);
        }
        return v >= Short.MIN_VALUE && v <= Short.MAX_VALUE
                ? new IntInsnNode(SIPUSH, v)
                : new LdcInsnNode(v);
    }
}
