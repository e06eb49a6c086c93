package dev.sandjar.packs;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Operation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A function set Sandjar runs on the host for the guest, reached through a pack's {@code "kind":
 * "host"} module. A pack names the id and nothing else: the code is this object's, registered by
 * the embedding application in {@link HostModules}, and only the package named by {@link
 * #packageName()} may declare it. Immutable.
 *
 * <p>Each export is an {@link Operation}: its parameters are checked by the host on every call
 * before the handler runs, and the handler enforces the module's own limits (input sizes, work).
 * The guest sees a generated ES module with one async function per export and a default namespace
 * object holding them all.
 */
public final class HostModule {
    private static final Pattern ID = Pattern.compile("[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*");

    private final String id;
    private final String packageName;
    private final String description;
    private final Map<String, Operation> exports;
    private final boolean builtIn;

    private HostModule(Builder b) {
        this.id = b.id;
        this.packageName = b.packageName;
        this.description = b.description;
        this.exports = Collections.unmodifiableMap(new LinkedHashMap<>(b.exports));
        this.builtIn = false;
    }

    private HostModule(HostModule m, boolean builtIn) {
        this.id = m.id;
        this.packageName = m.packageName;
        this.description = m.description;
        this.exports = m.exports;
        this.builtIn = builtIn;
    }

    /** This module as one of Sandjar's own, which its worker processes can run. */
    HostModule asBuiltIn() {
        return new HostModule(this, true);
    }

    /**
     * Whether this is one of Sandjar's own modules ({@link HostModules#builtIn()}): their calls run
     * in the sandbox's worker processes (docs/sandbox.md, "Host work"), where the same module is
     * found by id. An application's own modules run in the sandbox's JVM.
     */
    public boolean isBuiltIn() {
        return builtIn;
    }

    /**
     * @param id the id a manifest names ({@code "host": "diff"}): lower-case words joined by '-'
     * @param packageName the one package allowed to declare this id
     */
    public static Builder builder(String id, String packageName) {
        return new Builder(id, packageName);
    }

    public String id() {
        return id;
    }

    public String packageName() {
        return packageName;
    }

    public String description() {
        return description;
    }

    /** The exported functions by name, in declaration order. */
    public Map<String, Operation> exports() {
        return exports;
    }

    @Override
    public String toString() {
        return "HostModule[" + id + " of " + packageName + ", exports=" + exports.keySet() + "]";
    }

    public static final class Builder {
        private final String id;
        private final String packageName;
        private String description = "";
        private final Map<String, Operation> exports = new LinkedHashMap<>();

        private Builder(String id, String packageName) {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(packageName, "packageName");
            if (id.length() > 64 || !ID.matcher(id).matches()) {
                throw new InvalidRequestException(
                        "host module id '" + id + "' must match " + ID.pattern());
            }
            if (!PackNames.isValidPackageName(packageName)) {
                throw new InvalidRequestException(
                        "'" + packageName + "' is not a valid package name");
            }
            this.id = id;
            this.packageName = packageName;
        }

        public Builder description(String text) {
            this.description = Objects.requireNonNull(text, "description");
            return this;
        }

        /** One exported function; its name must be a JavaScript name that is not reserved. */
        public Builder export(Operation operation) {
            String problem = PackNames.exportNameProblem(operation.name());
            if (problem != null) {
                throw new InvalidRequestException(
                        "host module " + id + ": export '" + operation.name() + "' " + problem);
            }
            if (exports.putIfAbsent(operation.name(), operation) != null) {
                throw new InvalidRequestException(
                        "host module " + id + " exports '" + operation.name() + "' twice");
            }
            return this;
        }

        public HostModule build() {
            if (exports.isEmpty()) {
                throw new InvalidRequestException("host module " + id + " exports nothing");
            }
            return new HostModule(this);
        }
    }

    /** The names of {@code modules}, for messages. */
    static List<String> ids(Iterable<HostModule> modules) {
        List<String> out = new ArrayList<>();
        modules.forEach(m -> out.add(m.id()));
        return out;
    }
}
