package dev.sandjar.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The packs the parity table's bodies import, written into a directory at test time (nothing binary
 * is committed): {@code @parity/geo}, an untrusted pack with a root module, an internal file and a
 * scalar WebAssembly module whose bytes are spelled out below.
 */
final class ParityFixture {
    private ParityFixture() {}

    static final String PACK = "@parity/geo";

    /**
     * {@code (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1
     * i32.add))}: 41 bytes, no memory, no imports.
     */
    static byte[] addWasm() {
        int[] b = {
            0x00,
            0x61,
            0x73,
            0x6d,
            0x01,
            0x00,
            0x00,
            0x00, // magic, version 1
            0x01,
            0x07,
            0x01,
            0x60,
            0x02,
            0x7f,
            0x7f,
            0x01,
            0x7f, // type: (i32 i32) -> i32
            0x03,
            0x02,
            0x01,
            0x00, // function 0 has type 0
            0x07,
            0x07,
            0x01,
            0x03,
            0x61,
            0x64,
            0x64,
            0x00,
            0x00, // export "add" = func 0
            0x0a,
            0x09,
            0x01,
            0x07,
            0x00,
            0x20,
            0x00,
            0x20,
            0x01,
            0x6a,
            0x0b // a + b
        };
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    /** Writes the packs into {@code root} (a directory of packs) and returns it. */
    static Path writePacks(Path root) {
        Path geo = root.resolve("@parity").resolve("geo");
        try {
            Files.createDirectories(geo);
            write(
                    geo.resolve("package.json"),
                    """
                    {
                      "name": "@parity/geo",
                      "version": "1.0.0",
                      "description": "The parity table's pack",
                      "sandjar": {
                        "apiVersion": 1,
                        "sandboxModules": [
                          { "name": ".", "kind": "js", "file": "geo.js" },
                          { "name": "math", "kind": "wasm", "file": "math.wasm",
                            "memoryPagesMax": 1, "exports": ["add"] }
                        ],
                        "internal": ["util.js"]
                      }
                    }
                    """);
            write(
                    geo.resolve("geo.js"),
                    """
                    import { double } from "./util.js";
                    import { add } from "@parity/geo/math";
                    export async function sum(a, b) { return double(await add(a, b)); }
                    export function seesFetch() { return typeof fetch; }
                    export function fail(why) { throw new RangeError(why); }
                    """);
            write(geo.resolve("util.js"), "export function double(x) { return x * 2; }\n");
            Files.write(geo.resolve("math.wasm"), addWasm());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return root;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
