package dev.sandjar.packs;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.Operation;
import dev.sandjar.packs.internal.HostModuleTask;
import dev.sandjar.packs.internal.HostWork;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The module resolution of one catalog resolution: the enforcement point for what a run imports.
 * The user's code may import exactly the declared specifiers. A pack module may import exactly the
 * static imports discovery read from it, each already resolved to a sibling in its own pack. Every
 * other request is refused with a message saying why; the host names the specifier. Dynamic {@code
 * import()} never reaches this class (the host refuses it first).
 *
 * <p>Host facades get their module's bridge only after the registry pin is checked again, because a
 * resolution can outlive the catalog state it came from. Modules are built once and reused, so
 * every run of this resolution sees the same module objects. Thread-safe.
 */
final class PackLoader implements ModuleResolution {
    private final CatalogSnapshot snapshot;
    private final Map<String, CatalogSnapshot.Served> declared;
    private final Map<String, DiscoveredPack.Node> reachable = new HashMap<>();
    private final Map<String, Module> modules = new ConcurrentHashMap<>();

    private static final Module GUARD = new Module(PackTrust.GUARD_MODULE, PackTrust.GUARD_SOURCE);

    PackLoader(CatalogSnapshot snapshot, Map<String, CatalogSnapshot.Served> declared) {
        this.snapshot = snapshot;
        this.declared = Map.copyOf(declared);
        for (CatalogSnapshot.Served s : declared.values()) {
            for (String id : DiscoveredPack.closure(s.pack().nodes, s.entry().nodeId())) {
                reachable.put(id, s.pack().nodes.get(id));
            }
        }
    }

    @Override
    public Module resolve(String importer, String specifier) {
        DiscoveredPack.Node from = reachable.get(importer);
        if (from != null) {
            return fromPackModule(from, specifier);
        }
        if (importer.contains("::")) {
            throw new Refused("the importing module is not part of this run");
        }
        CatalogSnapshot.Served s = declared.get(specifier);
        if (s == null) {
            throw new Refused(snapshot.explain(specifier));
        }
        return module(reachable.get(s.entry().nodeId()));
    }

    private Module fromPackModule(DiscoveredPack.Node from, String specifier) {
        if (from.kind() != DiscoveredPack.NodeKind.FILE) {
            throw new Refused("a generated facade imports nothing but its own bridge");
        }
        if (specifier.equals(PackTrust.GUARD_MODULE) && snapshot.isGuarded(from)) {
            return GUARD;
        }
        String target = from.imports().get(specifier);
        if (target == null) {
            throw new Refused(
                    from.pack()
                            + " "
                            + from.file()
                            + " may import only its own pack's files and modules, read from its"
                            + " imports and re-exports when the pack was discovered");
        }
        DiscoveredPack.Node to = reachable.get(target);
        if (to == null) {
            throw new Refused(target + " is not available to this run");
        }
        return module(to);
    }

    private Module module(DiscoveredPack.Node node) {
        Module m = modules.get(node.id());
        if (m != null) {
            return m;
        }
        m =
                switch (node.kind()) {
                    case FILE -> new Module(node.id(), snapshot.servedSource(node));
                    case HOST_FACADE -> new Module(node.id(), node.source(), List.of(host(node)));
                    case WASM_FACADE ->
                            new Module(
                                    node.id(),
                                    node.source(),
                                    List.of(
                                            WasmRunner.bridge(
                                                    Facades.wasmBridgeName(node.entrySpecifier()),
                                                    node.entrySpecifier(),
                                                    node.wasm(),
                                                    snapshot.budgets)));
                };
        Module raced = modules.putIfAbsent(node.id(), m);
        return raced != null ? raced : m;
    }

    private Bridge host(DiscoveredPack.Node node) {
        String refusal = snapshot.hosts.refusal(node.hostId(), node.pack());
        if (refusal != null) {
            throw new Refused(refusal);
        }
        HostModule hm = snapshot.hosts.find(node.hostId()).orElseThrow();
        Bridge.Builder b = Bridge.builder(Facades.hostBridgeName(hm.id())).guest("(host) => ({})");
        for (Operation op : hm.exports().values()) {
            b.operation(hm.isBuiltIn() ? isolated(hm, op) : op);
        }
        return b.build();
    }

    /**
     * A built-in module's export whose calls run in the sandbox's worker processes: the arguments
     * are checked here, as for any operation, then the worker runs the same handler on them.
     */
    private static Operation isolated(HostModule hm, Operation op) {
        Operation.Builder b = Operation.builder(op.name());
        op.params().forEach(b::param);
        return b.handler(
                        call ->
                                HostWork.isolated(
                                        call, HostModuleTask.class, HostModuleTask.input(hm, call)))
                .build();
    }
}
