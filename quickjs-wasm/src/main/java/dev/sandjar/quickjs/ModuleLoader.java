package dev.sandjar.quickjs;

/**
 * Resolves and loads ES modules for a runtime. Runs on the engine thread.
 *
 * <p>{@link #normalize} turns a specifier as written in {@code importer} into a module name; {@link
 * #load} returns the module's source for that name. Either may throw {@link ModuleRefusedException}
 * (or any exception) to fail the import; the guest sees an error naming the specifier.
 */
public interface ModuleLoader {
    /** The default keeps the specifier as written. */
    default String normalize(String importer, String specifier) {
        return specifier;
    }

    String load(String moduleName);

    /** Thrown by a loader to refuse a module with a message the guest sees. */
    final class ModuleRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ModuleRefusedException(String message) {
            super(message);
        }
    }
}
