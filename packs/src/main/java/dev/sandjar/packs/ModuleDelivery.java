package dev.sandjar.packs;

import java.util.List;
import java.util.Objects;

/**
 * One module's source, authorized for delivery to a client that runs the guest elsewhere (a
 * browser). Carries no filesystem path: the client fetches dependencies by their ids and checks
 * each body against {@code contentSha256}.
 *
 * @param moduleId the id it was asked for: a public specifier, or a graph id ({@code
 *     <pack>::<file>} for files, {@code <specifier>::facade} for generated facades)
 * @param graphId the graph id of the delivered module (the loader's module name)
 * @param pack the name of the package that serves it (for entitlement checks)
 * @param file the pack-relative file, or {@code facade} for generated source
 * @param source the ES module source
 * @param mediaType {@value #MEDIA_TYPE}
 * @param graphDigest the digest of the module's whole graph
 * @param contentSha256 SHA-256 (hex) of {@code source} as delivered, in UTF-8
 * @param dependencyIds the graph ids of the modules it imports, in import order
 * @param hostModule the host module id a host facade calls, or null
 * @param npm for a compiled npm bundle: the package, version, integrity and compiler descriptor it
 *     was compiled from (part of its line in the graph digest), or null
 */
public record ModuleDelivery(
        String moduleId,
        String graphId,
        String pack,
        String file,
        String source,
        String mediaType,
        String graphDigest,
        String contentSha256,
        List<String> dependencyIds,
        String hostModule,
        String npm) {
    public static final String MEDIA_TYPE = "text/javascript; charset=utf-8";

    public ModuleDelivery {
        Objects.requireNonNull(moduleId, "moduleId");
        Objects.requireNonNull(graphId, "graphId");
        Objects.requireNonNull(pack, "pack");
        Objects.requireNonNull(source, "source");
        dependencyIds = List.copyOf(dependencyIds);
    }
}
