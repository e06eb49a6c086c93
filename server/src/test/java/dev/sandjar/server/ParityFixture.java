package dev.sandjar.server;

import dev.sandjar.host.Operation;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.HostModules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The packs the parity table's bodies import, written into a directory at test time (nothing binary
 * is committed), and the host module one of them declares. Sandjar's shipped packs are left out:
 * the table must not move when a shipped library does, and discovering them would cost each runner
 * most of its start.
 *
 * <ul>
 *   <li>{@code @parity/geo}: untrusted; a root module, an internal file, and a scalar WebAssembly
 *       module whose bytes are spelled out below;
 *   <li>{@code @parity/text}: trusted by every runner ({@link #TRUSTED}); one guest module;
 *   <li>{@code @parity/shout}: a host module, {@code shout(text)} upper-cases its text.
 * </ul>
 */
final class ParityFixture {
    private ParityFixture() {}

    /** The pack every runner trusts. */
    static final String TRUSTED = "@parity/text";

    /** The built-in host modules and {@code shout}, pinned to {@code @parity/shout}. */
    static final HostModules HOST_MODULES =
            HostModules.builder()
                    .addBuiltIns()
                    .add(
                            HostModule.builder("shout", "@parity/shout")
                                    .export(
                                            Operation.builder("shout")
                                                    .param(Param.string("text"))
                                                    .handler(
                                                            call ->
                                                                    call.string(0)
                                                                            .toUpperCase(
                                                                                    java.util.Locale
                                                                                            .ROOT))
                                                    .build())
                                    .build())
                    .build();

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
            Path text = root.resolve("@parity").resolve("text");
            Files.createDirectories(text);
            write(
                    text.resolve("package.json"),
                    """
                    {
                      "name": "@parity/text",
                      "version": "1.0.0",
                      "sandjar": {
                        "apiVersion": 1,
                        "sandboxModules": [
                          { "name": ".", "kind": "js", "file": "text.js" },
                          { "name": "case", "kind": "js", "file": "case.js" }
                        ],
                        "internal": ["words.js"]
                      }
                    }
                    """);
            write(
                    text.resolve("text.js"),
                    """
                    import { words } from "./words.js";
                    export function title(s) {
                      return s.split(" ").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
                    }
                    export function seesFetch() { return typeof fetch; }
                    export function count(s) { return words(s).length; }
                    export function fail(why) { throw new RangeError(why); }
                    """);
            // A second module sharing the internal file and importing the first by its specifier.
            write(
                    text.resolve("case.js"),
                    """
                    import { title } from "@parity/text";
                    import { words } from "./words.js";
                    export function kebab(s) { return words(s).join("-").toLowerCase(); }
                    export function shouting(s) { return title(s).toUpperCase(); }
                    """);
            write(
                    text.resolve("words.js"),
                    "export function words(s) { return s.split(/\\s+/).filter(Boolean); }\n");
            Path shout = root.resolve("@parity").resolve("shout");
            Files.createDirectories(shout);
            write(
                    shout.resolve("package.json"),
                    """
                    {
                      "name": "@parity/shout",
                      "version": "1.0.0",
                      "sandjar": {
                        "apiVersion": 1,
                        "sandboxModules": [{ "name": ".", "kind": "host", "host": "shout" }]
                      }
                    }
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return root;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
