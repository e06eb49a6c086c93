package dev.sandjar.host;

import java.util.List;
import java.util.Objects;

/**
 * How a run's {@code import}s are served. Without one, every import fails naming its specifier.
 * With one, the sandbox asks it for each static import while the entry module links, and for
 * nothing else: a dynamic {@code import()} is refused whatever the resolution would say.
 *
 * <p>Called on the run's engine thread, possibly for several runs at once: implementations must be
 * thread-safe. A module's {@link Module#name()} identifies it within the run (imports of the same
 * name share one instance) and is the {@code importer} its own imports are resolved against.
 */
@FunctionalInterface
public interface ModuleResolution {
    /**
     * Resolves {@code specifier}, written in the module named {@code importer} (the run's filename
     * for the user's code).
     *
     * @throws Refused when the module may not or cannot be imported; its message reaches the guest
     */
    Module resolve(String importer, String specifier);

    /**
     * A module to evaluate: its unique name within the run, its ES module source, and the bridges
     * it alone may reach.
     *
     * <p>A module with bridges (a host module's generated facade, say) reaches each one with {@code
     * import host from "sandjar:bridge/<bridge name>"}: the default export is that bridge's {@code
     * host} object ({@code host.call(op, ...args)}, checked by the host exactly as for a global
     * bridge). Only a module that lists the bridge may import it; the user's code and every other
     * module are refused. The bridges' guest sources are not used for modules.
     */
    record Module(String name, String source, List<Bridge> bridges) {
        public Module {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(source, "source");
            bridges = List.copyOf(bridges);
            if (name.isEmpty() || name.indexOf('\0') >= 0 || name.startsWith("sandjar:")) {
                throw new InvalidRequestException("bad module name '" + name + "'");
            }
        }

        public Module(String name, String source) {
            this(name, source, List.of());
        }
    }

    /** The import is refused; the message says why and names the specifier. */
    final class Refused extends RefusedException {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }
}
