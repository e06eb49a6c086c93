package dev.sandjar.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.bridges.node.NodeDiagnostic;
import dev.sandjar.bridges.node.NodeValidator;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleDeclaration;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sandjar validate FILE.js}: checks a Code-node body without running it ({@link
 * NodeValidator}, docs/code-node-validation.md). Prints one diagnostic per line, {@code LINE:COL
 * CODE message}, on stdout (or a JSON array with {@code --json}) and a count on stderr; exits 2
 * when any diagnostic is an error, 0 otherwise, 1 on bad usage.
 */
final class ValidateCommand {
    /** The capabilities off unless granted, whose globals a granted node has. */
    private static final List<String> GRANTS = List.of("fetch", "workspace", "secrets", "video");

    static final String USAGE =
            String.join(
                    "\n",
                    "       sandjar validate FILE.js [--inputs A,B] [--streams A,B] [--outputs X,Y]"
                            + " [--grant NAME,...] [--json] [--packs DIR]...",
                    "validate options:",
                    "  --inputs A,B             the node's declared inputs (unchecked when left"
                            + " out; '' declares none)",
                    "  --streams A,B            the inputs connected as streams (declared inputs"
                            + " too)",
                    "  --outputs X,Y            the node's declared output handles (unchecked when"
                            + " left out)",
                    "  --grant NAME,...         capabilities the node is granted, whose globals"
                            + " count: "
                            + String.join(", ", GRANTS),
                    "  --json                   print a JSON array of {code, severity, message,"
                            + " line, column}",
                    "  --packs DIR              add a pack search path imports may resolve from"
                            + " (--trust-packs too)");

    private static final ObjectMapper JSON = new ObjectMapper();

    private ValidateCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        Path file = null;
        Set<String> inputs = null;
        Set<String> streams = null;
        Set<String> outputs = null;
        Set<String> grants = new LinkedHashSet<>();
        boolean json = false;
        List<SandjarCli.PackPath> packs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--inputs" -> inputs = SandjarCli.names(SandjarCli.value(args, ++i, a));
                case "--streams" -> streams = SandjarCli.names(SandjarCli.value(args, ++i, a));
                case "--outputs" -> outputs = SandjarCli.names(SandjarCli.value(args, ++i, a));
                case "--grant" -> grants.addAll(SandjarCli.names(SandjarCli.value(args, ++i, a)));
                case "--json" -> json = true;
                case "--packs", "--trust-packs" -> packs.add(SandjarCli.PackPath.of(a, args, i++));
                default -> {
                    if (a.startsWith("--")) {
                        throw new IllegalArgumentException("unknown validate option " + a);
                    }
                    if (file != null) {
                        throw new IllegalArgumentException("more than one file given");
                    }
                    file = Path.of(a);
                }
            }
        }
        if (file == null) {
            throw new IllegalArgumentException("validate needs a FILE.js");
        }
        for (String g : grants) {
            if (!GRANTS.contains(g)) {
                throw new IllegalArgumentException(
                        "--grant " + g + ": the capabilities to grant are " + GRANTS);
            }
        }
        String code;
        try {
            code = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("error: usage: cannot read " + file + ": " + e.getMessage());
            return 1;
        }
        List<NodeDiagnostic> found;
        try (Sandbox sandbox = Sandbox.builder().poolSize(1).build();
                Fetch fetch =
                        grants.contains("fetch")
                                ? Fetch.create(FetchConfig.builder().build())
                                : null) {
            NodeValidator.Builder b =
                    NodeValidator.builder()
                            .withBridges(bridges(grants, fetch, file))
                            .withImportCheck(new CatalogCheck(sandbox, packs));
            if (inputs != null) {
                b.withInputs(inputs);
            }
            if (streams != null) {
                b.withStreams(streams);
            }
            if (outputs != null) {
                b.withOutputs(outputs);
            }
            found = b.build().validate(sandbox, code);
        } catch (InvalidRequestException e) {
            err.println("error: usage: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("error: internal: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 2;
        }
        long errors = found.stream().filter(NodeDiagnostic::isError).count();
        if (json) {
            out.println(json(found));
        } else {
            found.forEach(out::println);
            if (!found.isEmpty()) {
                err.println(
                        file.getFileName()
                                + ": "
                                + count(errors, "error")
                                + ", "
                                + count(found.size() - errors, "warning"));
            }
        }
        return errors > 0 ? 2 : 0;
    }

    /** The bridges a run of the node gets: the defaults and the granted ones. */
    private static List<Bridge> bridges(Set<String> grants, Fetch fetch, Path file) {
        Capabilities.Builder caps = Capabilities.builder();
        if (fetch != null) {
            caps.fetch(fetch);
        }
        if (grants.contains("workspace")) {
            // only its globals are read: the probe touches no file
            Path dir = file.toAbsolutePath().getParent();
            caps.workspace(WorkspaceBridge.create(dir));
        }
        if (grants.contains("secrets")) {
            caps.secrets(SecretStore.of(Map.of()));
        }
        if (grants.contains("video")) {
            caps.video(VideoConfig.defaults()); // only its globals are read: nothing runs ffmpeg
        }
        return caps.build();
    }

    /**
     * Imports resolved against the shipped packs and the search paths given, the catalog read on
     * the first import (a body without imports never scans the packs).
     */
    private static final class CatalogCheck implements NodeValidator.ImportCheck {
        private final Sandbox sandbox;
        private final List<SandjarCli.PackPath> packs;
        private ModuleCatalog catalog;

        CatalogCheck(Sandbox sandbox, List<SandjarCli.PackPath> packs) {
            this.sandbox = sandbox;
            this.packs = packs;
        }

        @Override
        public String problem(String specifier) {
            if (catalog == null) {
                catalog = SandjarCli.catalog(sandbox, packs);
            }
            CatalogResolution r =
                    catalog.resolveForExecution(List.of(ModuleDeclaration.of(specifier)));
            return r.isOk() ? null : r.errors().get(0).message();
        }
    }

    private static String json(List<NodeDiagnostic> found) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (NodeDiagnostic d : found) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("code", d.code());
            m.put("severity", d.severity().name().toLowerCase(Locale.ROOT));
            m.put("message", d.message());
            m.put("line", d.line());
            m.put("column", d.column());
            list.add(m);
        }
        try {
            return JSON.writeValueAsString(list);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // strings and numbers only: cannot happen
        }
    }

    private static String count(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
