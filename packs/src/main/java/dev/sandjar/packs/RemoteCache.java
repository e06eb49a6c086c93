package dev.sandjar.packs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A directory of module graphs a remote catalog fetched, one file per graph digest ({@code
 * <hex>.json}: every delivered module of the graph with the headers it came with). Files are
 * written to a temporary name and moved into place, so a reader never sees half of one. What it
 * reads is only a candidate: the catalog verifies it exactly as it verifies an answer from the
 * server, and deletes a file that fails. Thread-safe (the file system is the only state).
 */
final class RemoteCache {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final long maxFileBytes;

    RemoteCache(Path dir, long maxFileBytes) {
        this.dir = dir;
        this.maxFileBytes = maxFileBytes;
    }

    private Path file(String graphDigest) {
        return dir.resolve(graphDigest.substring("sha256:".length()) + ".json");
    }

    /**
     * The graph stored under {@code graphDigest}, or null when there is none or it is unreadable.
     */
    List<RemoteServer.Delivered> read(String graphDigest) {
        Path f = file(graphDigest);
        if (!Files.isRegularFile(f)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(f)) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxFileBytes + 1));
            if (bytes.length > maxFileBytes) {
                delete(graphDigest);
                return null;
            }
            JsonNode root = JSON.readTree(bytes);
            List<RemoteServer.Delivered> out = new ArrayList<>();
            for (JsonNode m : root.path("modules")) {
                List<String> deps = new ArrayList<>();
                m.path("dependencyIds").forEach(d -> deps.add(d.asText()));
                out.add(
                        new RemoteServer.Delivered(
                                m.path("graphId").asText(),
                                m.path("source").asText(),
                                m.path("sha256").asText(),
                                m.path("graphDigest").asText(),
                                deps,
                                text(m, "hostModule"),
                                text(m, "npm")));
            }
            return out.isEmpty() ? null : out;
        } catch (IOException | RuntimeException e) {
            delete(graphDigest);
            return null;
        }
    }

    private static String text(JsonNode m, String field) {
        JsonNode v = m.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** Stores a verified graph; a failure to write only costs a fetch next time. */
    void write(String graphDigest, List<RemoteServer.Delivered> graph) {
        ObjectNode root = JSON.createObjectNode();
        root.put("graphDigest", graphDigest);
        ArrayNode modules = root.putArray("modules");
        for (RemoteServer.Delivered d : graph) {
            ObjectNode m = modules.addObject();
            m.put("graphId", d.graphId());
            m.put("source", d.source());
            m.put("sha256", d.sha256());
            m.put("graphDigest", d.graphDigest());
            ArrayNode deps = m.putArray("dependencyIds");
            d.dependencyIds().forEach(deps::add);
            m.put("hostModule", d.hostModule());
            m.put("npm", d.npm());
        }
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, ".graph-", ".tmp");
            Files.write(tmp, JSON.writeValueAsBytes(root));
            try {
                Files.move(
                        tmp,
                        file(graphDigest),
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file(graphDigest), StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            // not cached: the next resolution fetches it again
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a stray temporary file is never read as a graph
                }
            }
        }
    }

    void delete(String graphDigest) {
        try {
            Files.deleteIfExists(file(graphDigest));
        } catch (IOException ignored) {
            // read again next time, and verified again
        }
    }
}
