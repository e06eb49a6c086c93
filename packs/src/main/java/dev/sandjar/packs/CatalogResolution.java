package dev.sandjar.packs;

import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.RefusedException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a set of declarations resolved to against one catalog snapshot: the modules, the errors (a
 * specifier nothing serves, naming the pack to install or why it is withheld) and the warnings (a
 * version or digest that moved since the caller recorded it). Immutable; it keeps the snapshot it
 * was made from, so a catalog reload does not change a resolution a run is using.
 *
 * <pre>{@code
 * CatalogResolution r = catalog.resolveBody(code);
 * if (!r.isOk()) { report(r.errors()); return; }        // before the guest starts
 * sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
 * }</pre>
 */
public final class CatalogResolution {
    /** A finding about one specifier. */
    public record Problem(String specifier, String message) {
        public Problem {
            Objects.requireNonNull(specifier, "specifier");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public String toString() {
            return "'" + specifier + "': " + message;
        }
    }

    private final List<ModuleSummary> modules;
    private final List<Problem> errors;
    private final List<Problem> warnings;
    private final PackLoader loader;

    CatalogResolution(
            CatalogSnapshot snapshot,
            Map<String, CatalogSnapshot.Served> declared,
            List<ModuleSummary> modules,
            List<Problem> errors,
            List<Problem> warnings) {
        this.modules = List.copyOf(modules);
        this.errors = List.copyOf(errors);
        this.warnings = List.copyOf(warnings);
        this.loader = new PackLoader(snapshot, declared);
    }

    /** The resolved modules, one per declared specifier, in declaration order. */
    public List<ModuleSummary> modules() {
        return modules;
    }

    public List<Problem> errors() {
        return errors;
    }

    public List<Problem> warnings() {
        return warnings;
    }

    public boolean isOk() {
        return errors.isEmpty();
    }

    /**
     * The loader for a run: resolves the declared specifiers for the user's code and each pack
     * module's own siblings, and refuses everything else. Reusable across runs and thread-safe.
     *
     * @throws RefusedException when there are errors: a run must not start with an import that
     *     cannot resolve
     */
    public ModuleResolution moduleResolution() {
        if (!errors.isEmpty()) {
            throw new RefusedException(
                    "the imports do not resolve: "
                            + String.join("; ", errors.stream().map(Problem::toString).toList()));
        }
        return loader;
    }
}
