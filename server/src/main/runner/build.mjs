// Bundles the browser runner (docs/runners.md) with the esbuild this folder's lockfile pins:
// runner.js and page.js with quickjs-emscripten-core and its quickjs-ng variant into one ES module,
// the host's own guest scripts (prelude.js, analyzer.js), the fetch bridge's (fetch.js) and acorn
// inlined as text, and the engine's wasm file and the WebAssembly worker copied beside it. Run by the server's build; its output is never committed.
//
// usage: node build.mjs NODE_MODULES HOST_RESOURCES OUT_DIR BRIDGES_RESOURCES
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [nodeModules, hostResources, out, bridgesResources] = process.argv.slice(2);
if (!bridgesResources) {
  console.error("usage: node build.mjs NODE_MODULES HOST_RESOURCES OUT_DIR BRIDGES_RESOURCES");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const esbuild = createRequire(join(nodeModules, "noop.js"))("esbuild");
const texts = {
  acorn: join(nodeModules, "acorn", "dist", "acorn.js"),
  analyzer: join(hostResources, "analyzer.js"),
  prelude: join(hostResources, "prelude.js"),
  fetch: join(bridgesResources, "fetch", "fetch.js"),
};

mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(here, "page.js")],
  outfile: join(out, "runner.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "inline",
  nodePaths: [nodeModules],
  logLevel: "warning",
  plugins: [
    {
      name: "sandjar-text",
      setup(b) {
        b.onResolve({ filter: /^sandjar-text:/ }, (a) => {
          const path = texts[a.path.substring("sandjar-text:".length)];
          if (!path) throw new Error("no text named " + a.path);
          return { path, namespace: "sandjar-text" };
        });
        b.onLoad({ filter: /.*/, namespace: "sandjar-text" }, (a) => ({
          contents: readFileSync(a.path, "utf8"),
          loader: "text",
        }));
      },
    },
  ],
});
copyFileSync(
  join(nodeModules, "@jitl", "quickjs-ng-wasmfile-release-sync", "dist", "emscripten-module.wasm"),
  join(out, "quickjs.wasm"),
);
copyFileSync(join(here, "index.html"), join(out, "index.html"));
copyFileSync(join(here, "wasm-worker.js"), join(out, "wasm-worker.js"));
console.log("bundled the browser runner into " + out);
