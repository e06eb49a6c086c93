package dev.sandjar.packs;

import java.util.List;
import java.util.Objects;

/**
 * The sandbox half of a pack's {@code package.json}: its name and version, and the {@code sandjar}
 * field that declares the modules it offers. Immutable; read by discovery from the file, never from
 * code.
 *
 * <pre>{@code
 * {
 *   "name": "@acme/geo", "version": "1.2.0",
 *   "sandjar": {
 *     "apiVersion": 1,
 *     "sandboxModules": [
 *       { "name": ".", "kind": "js", "file": "sandbox/geo.js" },
 *       { "name": "simplify", "kind": "wasm", "file": "sandbox/simplify.wasm",
 *         "memoryPagesMax": 16, "exports": ["simplify", { "wasm": "foo-bar", "as": "fooBar" }] }
 *     ],
 *     "internal": ["sandbox/util.js"]
 *   }
 * }
 * }</pre>
 *
 * @param name the package name ({@code name} or {@code @scope/name}, npm's rules)
 * @param version the package version as written
 * @param description the package description, or empty
 * @param modules the declared modules, in manifest order
 * @param internal pack-relative JS files the pack's own modules may import and user code may not
 */
public record PackManifest(
        String name,
        String version,
        String description,
        List<ModuleSpec> modules,
        List<String> internal) {

    /** The only manifest format this library reads. */
    public static final int API_VERSION = 1;

    /** The host's ceiling for a WebAssembly memory, in 64 KiB pages (256 MiB). */
    public static final int MAX_MEMORY_PAGES = 4096;

    /** Most parameters a scalar WebAssembly export may take. */
    public static final int MAX_WASM_PARAMS = 8;

    public PackManifest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(description, "description");
        modules = List.copyOf(modules);
        internal = List.copyOf(internal);
    }

    /** What a module is: where its code runs. */
    public enum Kind {
        /** Authored JavaScript that runs inside the guest. */
        JS,
        /** A function set Sandjar implements on the host, named by id. */
        HOST,
        /** A scalar WebAssembly module run on the host, a fresh instance per call. */
        WASM,
        /** An npm package compiled into one ES module that runs inside the guest. */
        NPM;

        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One declared module. */
    public sealed interface ModuleSpec permits JsEntry, HostEntry, WasmEntry, NpmEntry {
        /** {@code "."} for the package's root module, else one path segment. */
        String name();

        Kind kind();

        /** A one-line description for summaries, or empty. */
        String description();
    }

    /** {@code "kind": "js"}: an authored ES module, {@code file} relative to the pack. */
    public record JsEntry(String name, String description, String file) implements ModuleSpec {
        @Override
        public Kind kind() {
            return Kind.JS;
        }
    }

    /** {@code "kind": "host"}: the host module registered under {@code host}. */
    public record HostEntry(String name, String description, String host) implements ModuleSpec {
        @Override
        public Kind kind() {
            return Kind.HOST;
        }
    }

    /** {@code "kind": "wasm"}: a scalar WebAssembly binary and the exports it offers. */
    public record WasmEntry(
            String name,
            String description,
            String file,
            int memoryPagesMax,
            List<WasmExport> exports)
            implements ModuleSpec {
        public WasmEntry {
            exports = List.copyOf(exports);
        }

        @Override
        public Kind kind() {
            return Kind.WASM;
        }
    }

    /**
     * {@code "kind": "npm"}: the npm package {@code npmPackage} at exactly {@code npmVersion}
     * (optionally its export {@code subpath}, and extra resolver {@code conditions}), compiled by
     * Sandjar's npm compiler. A config-only entry names the package; the compiler adds the compiled
     * fields: the pack-relative {@code bundle}, its SHA-256, the package's lockfile integrity and
     * the compiler descriptor (version and options digest). Without a bundle the module is withheld
     * until it is compiled.
     */
    public record NpmEntry(
            String name,
            String description,
            String npmPackage,
            String npmVersion,
            String subpath,
            List<String> conditions,
            String bundle,
            String bundleSha256,
            String integrity,
            String compiler)
            implements ModuleSpec {
        public NpmEntry {
            conditions = List.copyOf(conditions);
        }

        @Override
        public Kind kind() {
            return Kind.NPM;
        }

        /** Whether the compiler's fields are present. */
        public boolean isCompiled() {
            return bundle != null;
        }
    }

    /**
     * One WebAssembly export: {@code wasm} is its name in the binary, {@code as} the JavaScript
     * name the facade exports it under ({@code "simplify"} is short for both).
     */
    public record WasmExport(String wasm, String as) {}

    /**
     * The import specifier of a module: the package name for {@code "."}, else {@code pkg/name}.
     */
    public static String specifier(String packageName, String moduleName) {
        return PackNames.specifier(packageName, moduleName);
    }

    /** The module a manifest declares under {@code name}, if any. */
    public java.util.Optional<ModuleSpec> module(String moduleName) {
        return modules.stream().filter(m -> m.name().equals(moduleName)).findFirst();
    }
}
