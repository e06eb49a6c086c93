package dev.sandjar.packs;

import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.packs.internal.csv.CsvModule;
import dev.sandjar.packs.internal.diff.DiffModule;
import dev.sandjar.packs.internal.docx.DocxModule;
import dev.sandjar.packs.internal.exif.ExifModule;
import dev.sandjar.packs.internal.html.HtmlModule;
import dev.sandjar.packs.internal.pdf.PdfModule;
import dev.sandjar.packs.internal.tokens.TokensModule;
import dev.sandjar.packs.internal.xlsx.XlsxModule;
import dev.sandjar.packs.internal.xml.XmlModule;
import dev.sandjar.packs.internal.zip.ZipModule;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Sandjar's registry of host modules: which ids exist, what each one exports, and the one package
 * allowed to declare each. Immutable. Discovery refuses a {@code "kind": "host"} module whose id is
 * not here or whose pack is not the pinned one, and the per-run dispatcher checks both again before
 * it serves a call, so a pack on disk can never bring host code or borrow another package's.
 */
public final class HostModules {
    private final Map<String, HostModule> modules;

    private HostModules(Map<String, HostModule> modules) {
        this.modules = Collections.unmodifiableMap(new LinkedHashMap<>(modules));
    }

    /**
     * The host modules Sandjar ships, each pinned to its {@code @sandjar/<id>} pack (docs/packs.md,
     * "Shipped packs").
     */
    /** Sandjar's own modules, made once: their operations hold no per-run state. */
    private static final List<HostModule> BUILT_IN =
            List.of(
                    DiffModule.create().asBuiltIn(),
                    CsvModule.create().asBuiltIn(),
                    HtmlModule.create().asBuiltIn(),
                    XmlModule.create().asBuiltIn(),
                    ZipModule.create().asBuiltIn(),
                    PdfModule.create().asBuiltIn(),
                    XlsxModule.create().asBuiltIn(),
                    DocxModule.create().asBuiltIn(),
                    TokensModule.create().asBuiltIn(),
                    ExifModule.create().asBuiltIn());

    public static HostModules builtIn() {
        return builder().addBuiltIns().build();
    }

    /** No host modules at all. */
    public static HostModules none() {
        return new HostModules(Map.of());
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<HostModule> find(String id) {
        return Optional.ofNullable(modules.get(id));
    }

    public Collection<HostModule> all() {
        return modules.values();
    }

    /**
     * Why {@code packageName} may not declare host module {@code id}, or null when it may. The one
     * check discovery and the dispatcher share.
     */
    String refusal(String id, String packageName) {
        HostModule m = modules.get(id);
        if (m == null) {
            return "'"
                    + id
                    + "' is not a host module of this Sandjar (known: "
                    + String.join(", ", HostModule.ids(modules.values()))
                    + ")";
        }
        if (!m.packageName().equals(packageName)) {
            return "host module '"
                    + id
                    + "' may only be declared by "
                    + m.packageName()
                    + ", not by "
                    + packageName;
        }
        return null;
    }

    public static final class Builder {
        private final Map<String, HostModule> modules = new LinkedHashMap<>();

        private Builder() {}

        public Builder addBuiltIns() {
            for (HostModule m : BUILT_IN) {
                add(m);
            }
            return this;
        }

        public Builder add(HostModule module) {
            Objects.requireNonNull(module, "module");
            if (modules.putIfAbsent(module.id(), module) != null) {
                throw new InvalidRequestException(
                        "host module '" + module.id() + "' is registered twice");
            }
            return this;
        }

        public HostModules build() {
            return new HostModules(modules);
        }
    }
}
