package dev.sandjar.host;

import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.ModuleLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One run's module loader: the enforcement point for imports (docs/sandbox.md, "Modules"). While
 * the entry links, it asks the request's {@link ModuleResolution} for each static import and serves
 * {@code sandjar:bridge/<name>} to the module that declared that bridge; it refuses everything
 * else, so a dynamic {@code import()} is refused even for a declared module. Engine thread only.
 */
final class RunModuleLoader implements ModuleLoader {
    private static final String BRIDGE_MODULE = "sandjar:bridge/";

    private final RunRequest request;
    private final List<Bridge> bridges;
    private final Map<String, ModuleResolution.Module> modulesByName = new HashMap<>();
    private final Map<String, String> moduleSources = new HashMap<>();
    private JsContext ctx;
    private JsValue makeHost;
    private JsValue trust;
    private ValueTransfer values;
    private boolean linking;

    /**
     * @param bridges the run's bridges by dispatch index, shared with the dispatcher: a bridge only
     *     a module declared is appended when that module imports it
     */
    RunModuleLoader(RunRequest request, List<Bridge> bridges) {
        this.request = request;
        this.bridges = bridges;
    }

    /** The run's context, once set up: bridge modules get their host object from it. */
    void attach(Template template, ValueTransfer values) {
        this.ctx = template.context;
        this.makeHost = template.makeHost;
        this.trust = template.trust;
        this.values = values;
    }

    /** Imports are served only while the entry links; set around the entry's evaluation. */
    void linking(boolean linking) {
        this.linking = linking;
    }

    @Override
    public String normalize(String importer, String specifier) {
        if (!linking) {
            throw new ModuleRefusedException(
                    "dynamic import() is not allowed in the sandbox; import it statically at"
                            + " the top of the code");
        }
        if (specifier.startsWith(BRIDGE_MODULE)) {
            return bridgeModule(importer, specifier.substring(BRIDGE_MODULE.length()));
        }
        ModuleResolution resolution = request.modules();
        if (resolution == null) {
            throw new ModuleRefusedException("this run declares no modules");
        }
        ModuleResolution.Module m;
        try {
            m = resolution.resolve(importer, specifier);
        } catch (ModuleResolution.Refused e) {
            throw new ModuleRefusedException(e.getMessage());
        }
        if (m == null) {
            throw new ModuleRefusedException("no module is available under that name");
        }
        if (m.name().equals(request.filename())) {
            throw new ModuleRefusedException("a module cannot take the run's own filename");
        }
        ModuleResolution.Module known = modulesByName.putIfAbsent(m.name(), m);
        if (known != null && !known.equals(m)) {
            throw new ModuleRefusedException(
                    "module " + m.name() + " resolved to two different modules in one run");
        }
        if (moduleSources.put(m.name(), m.source()) == null && !m.bridges().isEmpty()) {
            // A module given bridges is the sandbox's own (a generated facade): its frames and
            // source are hidden from the user's code like the prelude's (docs/sandbox.md).
            try (JsValue name = ctx.newString(m.name());
                    JsValue source = ctx.newString(m.source())) {
                values.checkedCall(trust, name, source).close();
            }
        }
        return m.name();
    }

    /**
     * {@code sandjar:bridge/<name>}, for the module that declared that bridge only. The host object
     * waits under a registry symbol until the synthetic module, which evaluates before any module
     * that imports it and long before the user's code, takes it and deletes it.
     */
    private String bridgeModule(String importer, String name) {
        ModuleResolution.Module owner = modulesByName.get(importer);
        Bridge bridge =
                owner == null
                        ? null
                        : owner.bridges().stream()
                                .filter(b -> b.name().equals(name))
                                .findFirst()
                                .orElse(null);
        if (bridge == null) {
            throw new ModuleRefusedException(
                    "a bridge module can only be imported by the module that declares it");
        }
        String moduleName = BRIDGE_MODULE + name;
        if (moduleSources.containsKey(moduleName)) {
            if (!bridges.contains(bridge)) {
                throw new ModuleRefusedException(
                        "two different bridges are named '" + name + "' in this run");
            }
            return moduleName;
        }
        for (Bridge b : bridges) {
            if (b.name().equals(name) && b != bridge) {
                throw new ModuleRefusedException(
                        "two different bridges are named '" + name + "' in this run");
            }
        }
        int index = bridges.indexOf(bridge);
        if (index < 0) {
            bridges.add(bridge);
            index = bridges.size() - 1;
        }
        String key = "sandjar.bridge." + name;
        try (JsValue global = ctx.global();
                JsValue symbol = ctx.newSymbol(key, true);
                JsValue i = ctx.newNumber(index);
                JsValue n = ctx.newString(name);
                JsValue host = values.checkedCall(makeHost, i, n)) {
            ctx.setPropertyByKey(global, symbol, host);
        }
        moduleSources.put(
                moduleName,
                "const key = Symbol.for("
                        + "\""
                        + key
                        + "\""
                        + ");\nconst host = globalThis[key];\ndelete globalThis[key];\n"
                        + "export default host;\n");
        return moduleName;
    }

    @Override
    public String load(String moduleName) {
        String source = moduleSources.get(moduleName);
        if (source == null) {
            throw new ModuleRefusedException("module " + moduleName + " was not resolved");
        }
        return source;
    }
}
