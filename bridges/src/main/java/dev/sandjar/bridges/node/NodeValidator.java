package dev.sandjar.bridges.node;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.node.NodeDiagnostic.Severity;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.CodeAnalysis;
import dev.sandjar.host.CodeAnalysis.Reference;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.Sandbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a Code-node body against the node's declared inputs and outputs without running it, from
 * the sandbox's own parse ({@link Sandbox#analyze}: the tree a run uses). Immutable and
 * thread-safe; one validator serves any number of bodies of one node shape.
 *
 * <pre>{@code
 * NodeValidator validator = NodeValidator.builder()
 *         .withInputs(List.of("rows", "limit"))
 *         .withStreams(List.of("numbers"))          // connected as streams (inputs too)
 *         .withOutputs(List.of("row", "total"))
 *         .withBridges(capabilities)                 // the run's bridges: their globals
 *         .withImportCheck(specifier -> ...)         // why no pack serves it, or null
 *         .build();
 * List<NodeDiagnostic> found = validator.validate(sandbox, code);
 * }</pre>
 *
 * <p>What is not declared is not checked: without {@link Builder#withInputs} (or {@link
 * Builder#withStreams}) input names are not checked, without {@link Builder#withOutputs} output
 * handles are not, without {@link Builder#withImportCheck} imports are not. An empty collection
 * declares none. The codes and their severities are the constants of {@link NodeDiagnostic}
 * (docs/code-node-validation.md).
 */
public final class NodeValidator {
    /**
     * The names the Code-node runtime defines on every run of a body, whatever its bridges: globals
     * to this validator.
     */
    public static final Set<String> NODE_GLOBALS =
            Set.of("inputs", "state", "emit", "output", "stream");

    private static final String PROBE =
            "const names = [];\n"
                    + "for (let o = globalThis; o !== null; o = Object.getPrototypeOf(o)) {\n"
                    + "  names.push(...Object.getOwnPropertyNames(o));\n"
                    + "}\n"
                    + "return names;";

    /**
     * What a probe found, keyed by the bridges' guest sources (what decides the globals a run of
     * this engine build has). Few distinct bridge sets exist in a process; bounded all the same.
     */
    private static final int PROBE_CACHE_ENTRIES = 32;

    private static final Map<List<String>, Set<String>> PROBED =
            new LinkedHashMap<>(16, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<List<String>, Set<String>> eldest) {
                    return size() > PROBE_CACHE_ENTRIES;
                }
            };

    /** Properties every object has: reading one from {@code inputs} is not a missing input. */
    private static final Set<String> OBJECT_MEMBERS =
            Set.of(
                    "constructor",
                    "hasOwnProperty",
                    "isPrototypeOf",
                    "propertyIsEnumerable",
                    "toLocaleString",
                    "toString",
                    "valueOf",
                    "__proto__");

    /** The {@code stream} members that take an input's name. */
    private static final Set<String> NAMED_STREAM_READS = Set.of("first", "open");

    /**
     * Why nothing serves an import, for {@link Builder#withImportCheck}. The command line answers
     * with the pack catalog, so the message names the pack to install.
     */
    @FunctionalInterface
    public interface ImportCheck {
        /** Why no installed pack serves {@code specifier}, or null when one does. */
        String problem(String specifier);
    }

    private final Set<String> inputs; // null: not checked
    private final Set<String> streams;
    private final Set<String> outputs; // null: not checked
    private final Set<String> globals; // null: probed from bridges
    private final List<Bridge> bridges;
    private final ImportCheck importCheck; // null: not checked

    private NodeValidator(Builder b) {
        this.inputs = b.inputs == null && b.streams == null ? null : union(b.inputs, b.streams);
        this.streams = b.streams == null ? Set.of() : b.streams;
        this.outputs = b.outputs;
        this.globals = b.globals;
        this.bridges = b.bridges;
        this.importCheck = b.importCheck;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The body's diagnostics, placed ones by position and then those about the body as a whole
     * (line 0), each group in rule order. Code that does not parse has only its syntax error.
     *
     * @throws dev.sandjar.host.InvalidRequestException when the code is longer than the sandbox
     *     accepts
     */
    public List<NodeDiagnostic> validate(Sandbox sandbox, String code) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(code, "code");
        CodeAnalysis a = sandbox.analyzeReferences(code);
        if (a.syntaxError() != null) {
            RunError e = a.syntaxError();
            return List.of(
                    error(NodeDiagnostic.SYNTAX_ERROR, e.line(), e.column(), syntaxMessage(e)));
        }
        List<NodeDiagnostic> out = new ArrayList<>();
        if (a.hasExports()) {
            CodeAnalysis.Position at = a.firstExport();
            out.add(
                    error(
                            NodeDiagnostic.TOP_LEVEL_EXPORT,
                            at == null ? 0 : at.line(),
                            at == null ? 0 : at.column(),
                            "the code has a top-level export, but a Code node body is a function"
                                    + " body, not a module: remove export and write outputs with"
                                    + " await emit(name, value) or await output(name, value)"));
        }
        checkImports(a, out);
        for (CodeAnalysis.Position p : a.dynamicImports()) {
            out.add(
                    error(
                            NodeDiagnostic.DYNAMIC_IMPORT,
                            p.line(),
                            p.column(),
                            "dynamic import() is refused in the sandbox: import the module"
                                    + " statically at the top of the body"));
        }
        List<Reference> refs = a.freeReferences();
        Set<CodeAnalysis.Position> requires = new HashSet<>();
        for (CodeAnalysis.Position p : a.requireCalls()) {
            // The parser lists every call of a name `require`; only a free one is the missing one.
            if (refs == null || refs.stream().anyMatch(r -> isCallOf(r, "require", p))) {
                requires.add(p);
                out.add(
                        error(
                                NodeDiagnostic.REQUIRE_CALL,
                                p.line(),
                                p.column(),
                                "require(...) does not exist in the sandbox: import a pack's"
                                        + " module statically (import ... from \"pack\")"));
            }
        }
        if (refs == null) {
            out.add(
                    warning(
                            NodeDiagnostic.NOT_ANALYZED,
                            "the code nests too deeply for the name checks: globals, inputs,"
                                    + " streams and outputs were not checked"));
        } else {
            checkReferences(a, refs, requires, globals(sandbox), out);
        }
        out.sort(
                Comparator.comparing((NodeDiagnostic d) -> d.line() == 0)
                        .thenComparingInt(NodeDiagnostic::line)
                        .thenComparingInt(NodeDiagnostic::column));
        return List.copyOf(out);
    }

    private void checkImports(CodeAnalysis a, List<NodeDiagnostic> out) {
        if (importCheck == null) {
            return;
        }
        Map<String, String> problems = new LinkedHashMap<>();
        for (CodeAnalysis.Import i : a.imports()) {
            String problem =
                    problems.computeIfAbsent(
                            i.specifier(), s -> Objects.toString(importCheck.problem(s), ""));
            if (!problem.isEmpty()) {
                out.add(
                        error(
                                NodeDiagnostic.UNRESOLVED_IMPORT,
                                i.line(),
                                i.column(),
                                "import \"" + i.specifier() + "\": " + problem));
            }
        }
    }

    private void checkReferences(
            CodeAnalysis a,
            List<Reference> refs,
            Set<CodeAnalysis.Position> requires,
            Set<String> known,
            List<NodeDiagnostic> out) {
        // The mode the runtime picks from the same analysis: a body that mentions stream runs once
        // for the whole stream; one that calls neither emit nor output is a legacy body.
        boolean streaming = a.mentions("stream");
        boolean legacy = !a.mentions("emit") && !a.mentions("output");
        Set<String> streamed = new HashSet<>(streams);
        for (Reference r : refs) {
            if (isNamedStreamRead(r)) {
                streamed.add(r.argument()); // the body reads it as a stream: it is one
            }
        }
        Set<String> written = new HashSet<>();
        boolean dynamicWrites = false;
        for (Reference r : refs) {
            switch (r.name()) {
                case "inputs" -> checkInput(r, streaming, streamed, out);
                case "emit", "output" -> {
                    if (!r.called() || r.property() != null || r.argument() == null) {
                        dynamicWrites = true; // passed around, or a handle computed at run time
                    } else if (outputs != null && !outputs.contains(r.argument())) {
                        out.add(
                                error(
                                        NodeDiagnostic.UNDECLARED_OUTPUT,
                                        r.line(),
                                        r.column(),
                                        r.name()
                                                + "(\""
                                                + r.argument()
                                                + "\", ...) names an output handle the node does"
                                                + " not declare; "
                                                + declared("outputs", outputs)));
                    } else if (r.reachable()) {
                        written.add(r.argument());
                    }
                }
                case "stream" -> {
                    if (inputs != null && isNamedStreamRead(r) && !inputs.contains(r.argument())) {
                        out.add(
                                error(
                                        NodeDiagnostic.UNDECLARED_STREAM,
                                        r.line(),
                                        r.column(),
                                        streamCall(r)
                                                + " reads an input the node does not declare; "
                                                + declared("inputs", inputs)));
                    }
                }
                default -> {
                    if (!known.contains(r.name())
                            && !NODE_GLOBALS.contains(r.name())
                            && !r.typeofOperand() // typeof of a missing name is a guard
                            && !requires.contains(
                                    new CodeAnalysis.Position(r.line(), r.column()))) {
                        out.add(undefinedName(r, known));
                    }
                }
            }
        }
        if (outputs != null && !legacy && !dynamicWrites) {
            for (String handle : outputs) {
                if (!written.contains(handle)) {
                    out.add(
                            warning(
                                    NodeDiagnostic.UNWRITTEN_OUTPUT,
                                    "the output handle \""
                                            + handle
                                            + "\" is declared but no reachable emit or output"
                                            + " call writes it: call await output(\""
                                            + handle
                                            + "\", value) or await emit(\""
                                            + handle
                                            + "\", value), or remove the handle"));
                }
            }
        }
        if (legacy) {
            out.add(
                    warning(
                            NodeDiagnostic.LEGACY_BODY,
                            "the body calls neither emit nor output, so it runs the deprecated"
                                    + " contract (the returned object's keys become the outputs):"
                                    + " write each output with await output(name, value), or"
                                    + " send values as they come with await emit(name, value)"));
        }
    }

    private void checkInput(
            Reference r, boolean streaming, Set<String> streamed, List<NodeDiagnostic> out) {
        String name = r.property();
        if (name == null) {
            return; // inputs itself, or inputs[expression]: nothing to check
        }
        if (streaming && streamed.contains(name)) {
            out.add(
                    error(
                            NodeDiagnostic.STREAMED_INPUT_ON_INPUTS,
                            r.line(),
                            r.column(),
                            "inputs."
                                    + name
                                    + " is a streamed input, and a body that uses stream runs"
                                    + " once for the whole stream, so inputs holds only the"
                                    + " configured properties: read it with stream(\""
                                    + name
                                    + "\") (or stream.first(\""
                                    + name
                                    + "\"))"));
        } else if (inputs != null && !inputs.contains(name) && !OBJECT_MEMBERS.contains(name)) {
            out.add(
                    error(
                            NodeDiagnostic.UNDECLARED_INPUT,
                            r.line(),
                            r.column(),
                            "inputs."
                                    + name
                                    + " is not a declared input; "
                                    + declared("inputs", inputs)));
        }
    }

    private NodeDiagnostic undefinedName(Reference r, Set<String> known) {
        String name = r.name();
        if (inputs != null && inputs.contains(name)) {
            return error(
                    NodeDiagnostic.INPUT_AS_GLOBAL,
                    r.line(),
                    r.column(),
                    name
                            + " is not defined: inputs are not globals, they live on the inputs"
                            + " object; read inputs."
                            + name);
        }
        StringBuilder m =
                new StringBuilder(name)
                        .append(
                                " is not defined: it is neither a sandbox global nor declared in"
                                        + " the body");
        String near = nearest(name, known);
        if (near != null) {
            m.append("; did you mean ").append(near).append('?');
        } else {
            m.append("; declare it (const, let, function)");
            if (inputs == null) {
                m.append(", or if it is an input read inputs.").append(name);
            }
        }
        return error(NodeDiagnostic.UNDEFINED_NAME, r.line(), r.column(), m.toString());
    }

    private static boolean isCallOf(Reference r, String name, CodeAnalysis.Position p) {
        return r.name().equals(name)
                && r.called()
                && r.property() == null
                && r.line() == p.line()
                && r.column() == p.column();
    }

    /** {@code stream(name)}, {@code stream.first(name)} or {@code stream.open(name)}, literal. */
    private static boolean isNamedStreamRead(Reference r) {
        return r.name().equals("stream")
                && r.called()
                && r.argument() != null
                && (r.property() == null || NAMED_STREAM_READS.contains(r.property()));
    }

    private static String streamCall(Reference r) {
        return "stream"
                + (r.property() == null ? "" : "." + r.property())
                + "(\""
                + r.argument()
                + "\")";
    }

    private static String declared(String what, Set<String> names) {
        return names.isEmpty()
                ? "the node declares no " + what
                : "the declared " + what + " are " + String.join(", ", new TreeSet<>(names));
    }

    /** The parser's message without the position the diagnostic carries anyway. */
    private static String syntaxMessage(RunError e) {
        String message = e.message();
        String where = " (line " + e.line() + ", column " + e.column() + ")";
        if (message.endsWith(where)) {
            message = message.substring(0, message.length() - where.length());
        }
        return "invalid JavaScript: " + message;
    }

    /** The known name closest to a misspelled one (an edit or two away), or null. */
    private static String nearest(String name, Set<String> known) {
        int bound = name.length() < 4 ? 1 : 2;
        String best = null;
        int bestDistance = bound + 1;
        for (String k : new TreeSet<>(union(known, NODE_GLOBALS))) {
            if (Math.abs(k.length() - name.length()) > bound) {
                continue;
            }
            int d = distance(name, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    private Set<String> globals(Sandbox sandbox) {
        return globals != null ? globals : probeGlobals(sandbox, bridges);
    }

    /**
     * Every name a body run with {@code bridges} can read without declaring it: the engine's
     * built-ins, the sandbox's own globals and what the bridges define (the global object's own
     * properties and its prototypes'), found by running a probe on {@code sandbox}. The result is
     * cached in the process by the bridges' guest code, so a second probe of the same bridges costs
     * a map lookup. {@link #NODE_GLOBALS} are not in it: the probe runs as a plain run.
     */
    public static Set<String> probeGlobals(Sandbox sandbox, List<Bridge> bridges) {
        List<String> key = bridges.stream().map(Bridge::guestSource).toList();
        synchronized (PROBED) {
            Set<String> cached = PROBED.get(key);
            if (cached != null) {
                return cached;
            }
        }
        Object value =
                sandbox.run(RunRequest.builder(PROBE).bridges(bridges).build()).valueOrThrow();
        Set<String> names = new TreeSet<>();
        if (value instanceof List<?> list) {
            list.forEach(n -> names.add(String.valueOf(n)));
        }
        Set<String> found = Set.copyOf(names);
        synchronized (PROBED) {
            PROBED.put(key, found);
        }
        return found;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new LinkedHashSet<>();
        if (a != null) {
            u.addAll(a);
        }
        if (b != null) {
            u.addAll(b);
        }
        return Set.copyOf(u);
    }

    private static NodeDiagnostic error(String code, int line, int column, String message) {
        return new NodeDiagnostic(code, Severity.ERROR, message, line, column);
    }

    private static NodeDiagnostic warning(String code, String message) {
        return new NodeDiagnostic(code, Severity.WARNING, message, 0, 0);
    }

    public static final class Builder {
        private Set<String> inputs;
        private Set<String> streams;
        private Set<String> outputs;
        private Set<String> globals;
        private List<Bridge> bridges = Capabilities.defaults();
        private ImportCheck importCheck;

        private Builder() {}

        /**
         * The node's declared inputs; without this (or {@link #withStreams}) they are not checked.
         */
        public Builder withInputs(Collection<String> names) {
            this.inputs = names("inputs", names);
            return this;
        }

        /**
         * The inputs connected as streams. They are declared inputs too (listing them in {@link
         * #withInputs} as well is allowed). A body that uses {@code stream} must read them with
         * {@code stream(name)}, not {@code inputs.<name>}; one that does not runs once per item and
         * reads the item on {@code inputs}.
         */
        public Builder withStreams(Collection<String> names) {
            this.streams = names("streams", names);
            return this;
        }

        /** The node's declared output handles; without this they are not checked. */
        public Builder withOutputs(Collection<String> names) {
            this.outputs = names("outputs", names);
            return this;
        }

        /**
         * The bridges the node's runs get: their globals are found by a probe run ({@link
         * #probeGlobals}) on the first validation. The default is {@link Capabilities#defaults()}.
         * Replaces {@link #withGlobals}.
         */
        public Builder withBridges(List<Bridge> list) {
            this.bridges = List.copyOf(list);
            this.globals = null;
            return this;
        }

        /**
         * The sandbox globals, given exactly (from {@link #probeGlobals}, for one probe shared by
         * validators). {@link #NODE_GLOBALS} are added regardless. Replaces {@link #withBridges}.
         */
        public Builder withGlobals(Set<String> names) {
            this.globals = names("globals", names);
            this.bridges = List.of();
            return this;
        }

        /** Checks each static import's specifier; without one, imports are not checked. */
        public Builder withImportCheck(ImportCheck check) {
            this.importCheck = Objects.requireNonNull(check, "check");
            return this;
        }

        public NodeValidator build() {
            return new NodeValidator(this);
        }

        private static Set<String> names(String what, Collection<String> names) {
            Objects.requireNonNull(names, what);
            for (String n : names) {
                if (n == null || n.isEmpty()) {
                    throw new InvalidRequestException(what + " holds an empty name: " + names);
                }
            }
            return Set.copyOf(new LinkedHashSet<>(names));
        }
    }
}
