package dev.sandjar.packs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes fixture packs into a test's temporary directory. */
final class Fixtures {
    private Fixtures() {}

    /** {@code text} with single quotes turned into double quotes, for readable JSON in Java. */
    static String json(String text) {
        return text.replace('\'', '"');
    }

    /** A package.json for {@code name} declaring {@code modules} (JSON, single quotes allowed). */
    static String manifest(String name, String modules, String extra) {
        return json(
                "{'name': '"
                        + name
                        + "', 'version': '1.0.0', 'sandjar': {'apiVersion': 1, 'sandboxModules':"
                        + " ["
                        + modules
                        + "]"
                        + extra
                        + "}}");
    }

    static String manifest(String name, String modules) {
        return manifest(name, modules, "");
    }

    static Path write(Path dir, String rel, String text) {
        return write(dir, rel, text.getBytes(StandardCharsets.UTF_8));
    }

    static Path write(Path dir, String rel, byte[] bytes) {
        try {
            Path p = dir.resolve(rel);
            Files.createDirectories(p.getParent());
            Files.write(p, bytes);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void symlink(Path link, Path target) {
        try {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A valid module exporting {@code add} followed by a custom section of {@code padding}. */
    static byte[] paddedWasm(int padding) {
        byte[] base = WasmBytes.add("add");
        byte[] name = "pad".getBytes(StandardCharsets.UTF_8);
        int size = 1 + name.length + padding;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(base);
        out.write(0);
        long x = size;
        do {
            int b = (int) (x & 0x7f);
            x >>>= 7;
            out.write(x != 0 ? b | 0x80 : b);
        } while (x != 0);
        out.write(name.length);
        out.writeBytes(name);
        out.writeBytes(new byte[padding]);
        return out.toByteArray();
    }
}
