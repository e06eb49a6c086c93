package dev.sandjar.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Everything one run needs: the code, globals, limits, granted bridges and module resolution.
 * Immutable; {@code RunRequest.builder(code).global("inputs", map).bridge(b).build()}.
 *
 * <p>The code is a function body: its {@code return} value is the result, {@code await} works at
 * the top, and static {@code import} declarations anywhere at the top level are hoisted. Code that
 * has a top-level {@code export} is an ES module as written, and its default export is the result.
 */
public final class RunRequest {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    private final String code;
    private final String filename;
    private final Map<String, Object> globals;
    private final java.util.Set<String> inputs;
    private final Limits limits;
    private final List<Bridge> bridges;
    private final ModuleResolution modules;
    private final Consumer<LogEntry> logListener;
    private final SandboxClock clock;
    private final boolean truncateOutput;
    private final List<HostMemory> hostMemories;

    private RunRequest(Builder b) {
        code = b.code;
        filename = b.filename;
        globals = Collections.unmodifiableMap(new LinkedHashMap<>(b.globals));
        inputs = java.util.Set.copyOf(b.inputs);
        limits = b.limits;
        bridges = List.copyOf(b.bridges);
        modules = b.modules;
        logListener = b.logListener;
        clock = b.clock;
        truncateOutput = b.truncateOutput;
        hostMemories = List.copyOf(b.hostMemories);
    }

    static boolean isIdentifier(String name) {
        return IDENTIFIER.matcher(name).matches();
    }

    /** This request with other bridges and no module resolution: a session call's run. */
    RunRequest forSession(List<Bridge> sessionBridges, Limits effective) {
        return new RunRequest(this, sessionBridges, effective);
    }

    private RunRequest(RunRequest base, List<Bridge> bridges, Limits limits) {
        code = base.code;
        filename = base.filename;
        globals = base.globals;
        inputs = base.inputs;
        this.limits = limits;
        this.bridges = List.copyOf(bridges);
        modules = null;
        logListener = base.logListener;
        clock = base.clock;
        truncateOutput = base.truncateOutput;
        hostMemories = base.hostMemories;
    }

    public static Builder builder(String code) {
        return new Builder(code);
    }

    public String code() {
        return code;
    }

    /** The name errors and stacks use for the user's code; {@code main.js} by default. */
    public String filename() {
        return filename;
    }

    /** Globals to define before the code runs, by name. Values cross by the transport's rules. */
    public Map<String, Object> globals() {
        return globals;
    }

    /** The globals given with {@link Builder#input}: copied in, never copied back. */
    public java.util.Set<String> inputs() {
        return inputs;
    }

    /** Overrides of the sandbox's default limits (clamped to its ceilings). */
    public Limits limits() {
        return limits;
    }

    public List<Bridge> bridges() {
        return bridges;
    }

    /** How imports resolve; null when the run may import nothing. */
    public ModuleResolution modules() {
        return modules;
    }

    /** Receives each log line as it is logged (on the engine thread); null for none. */
    public Consumer<LogEntry> logListener() {
        return logListener;
    }

    public SandboxClock clock() {
        return clock;
    }

    /**
     * When true, a result over the output limit comes back cut, as a string of the encoded JSON
     * with {@link RunResult#outputTruncated()} set, instead of failing the run.
     */
    public boolean truncateOutput() {
        return truncateOutput;
    }

    /** The host-memory budgets the run's host work counts against, besides the sandbox's own. */
    public List<HostMemory> hostMemories() {
        return hostMemories;
    }

    public static final class Builder {
        private final List<HostMemory> hostMemories = new ArrayList<>();
        private final String code;
        private String filename = "main.js";
        private final Map<String, Object> globals = new LinkedHashMap<>();
        private final java.util.Set<String> inputs = new java.util.HashSet<>();
        private Limits limits = Limits.none();
        private final List<Bridge> bridges = new ArrayList<>();
        private ModuleResolution modules;
        private Consumer<LogEntry> logListener;
        private SandboxClock clock;
        private boolean truncateOutput;

        private Builder(String code) {
            this.code = Objects.requireNonNull(code, "code");
        }

        /** At most 255 characters, no NUL, no slash or backslash. */
        public Builder filename(String name) {
            Objects.requireNonNull(name, "filename");
            if (name.isEmpty()
                    || name.length() > 255
                    || name.indexOf('\0') >= 0
                    || name.indexOf('/') >= 0
                    || name.indexOf('\\') >= 0
                    || name.startsWith("sandjar:")) {
                throw new InvalidRequestException(
                        "filename '"
                                + name
                                + "' must be 1 to 255 characters without NUL, '/', '\\\\' or a"
                                + " 'sandjar:' prefix");
            }
            this.filename = name;
            return this;
        }

        /**
         * A global the code sees as {@code name}. Its value is copied in by the transport; if it is
         * an object (a map, list, set, ...) its value after a successful run is copied back into
         * {@link RunResult#globals()}, so state can survive between runs. A name that a built-in or
         * a granted bridge already defines is refused when the run starts.
         */
        public Builder global(String name, Object value) {
            Objects.requireNonNull(name, "global name");
            if (!IDENTIFIER.matcher(name).matches()) {
                throw new InvalidRequestException(
                        "global name '" + name + "' must be an identifier matching " + IDENTIFIER);
            }
            globals.put(name, value);
            inputs.remove(name);
            return this;
        }

        /**
         * A global given as JSON text, the form a command line or an HTTP body carries: plain JSON,
         * or the transport's markers for what JSON cannot hold ({@code {"$sj":"undef"}}, {@code
         * {"$sj":"bytes","type":"Uint8Array","base64":"..."}}, ...: docs/transport.md), exactly as
         * {@link RunResult#valueJson()} writes them. Otherwise as {@link #global(String, Object)}.
         *
         * @throws InvalidRequestException naming the global when the text is not valid JSON, or the
         *     path from it of a malformed marker ({@code rows[2]: a "date" marker's "v" must be
         *     ...})
         */
        public Builder jsonGlobal(String name, String json) {
            Objects.requireNonNull(json, "json");
            return global(name, ValueJson.read(json, name));
        }

        /**
         * A global copied in and never copied back, for data the caller does not need returned (the
         * copy back of a large object costs as much as the copy in).
         */
        public Builder input(String name, Object value) {
            global(name, value);
            inputs.add(name);
            return this;
        }

        /**
         * An input (as {@link #input}) given as JSON text, with the transport's markers allowed (as
         * {@link #jsonGlobal}).
         *
         * @throws InvalidRequestException naming the input when the text is not valid JSON or a
         *     marker is malformed
         */
        public Builder jsonInput(String name, String json) {
            jsonGlobal(name, json);
            inputs.add(name);
            return this;
        }

        public Builder globals(Map<String, ?> values) {
            values.forEach(this::global);
            return this;
        }

        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Grants a bridge to this run; two bridges of one name are refused. */
        public Builder bridge(Bridge bridge) {
            Objects.requireNonNull(bridge, "bridge");
            for (Bridge b : bridges) {
                if (b.name().equals(bridge.name())) {
                    throw new InvalidRequestException(
                            "bridge '" + bridge.name() + "' is granted twice");
                }
            }
            bridges.add(bridge);
            return this;
        }

        public Builder bridges(List<Bridge> list) {
            list.forEach(this::bridge);
            return this;
        }

        public Builder modules(ModuleResolution resolution) {
            this.modules = resolution;
            return this;
        }

        public Builder onLog(Consumer<LogEntry> listener) {
            this.logListener = listener;
            return this;
        }

        public Builder clock(SandboxClock clock) {
            this.clock = clock;
            return this;
        }

        public Builder truncateOutput(boolean truncate) {
            this.truncateOutput = truncate;
            return this;
        }

        /**
         * A budget of host memory this run's host work counts against, besides the sandbox's own (a
         * tenant's: {@link HostMemory}); repeatable.
         */
        public Builder hostMemory(HostMemory budget) {
            hostMemories.add(java.util.Objects.requireNonNull(budget, "budget"));
            return this;
        }

        public RunRequest build() {
            return new RunRequest(this);
        }
    }
}
