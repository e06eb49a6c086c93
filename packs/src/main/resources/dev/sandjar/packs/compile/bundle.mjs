// Sandjar's npm compiler, bundling step (docs/packs.md, "The npm compiler"). Run by the JVM side
// with node: bundles each job's npm package into one ES module with esbuild, in one process.
//
// Then reads each bundle with the sandbox's own analysis (its acorn.js and analyzer.js, the files
// the sandbox's analysis engine evaluates, handed over by the JVM side) run here in a fresh vm
// context: the same parser and scope walk, at node's speed.
//
// usage: node bundle.mjs JOBS.json
//   JOBS.json: { "toolDir": dir whose node_modules holds esbuild,
//                "projectDir": dir whose node_modules holds the packages,
//                "options": { conditions, mainFields, define },
//                "analysis": { "acorn", "analyzer": file paths, "wrappers": [4 strings] },
//                "jobs": [ { "id", "entry", "out", "conditions" } ] }
// Prints one JSON object: { "esbuild": version, "results": [ { id, ok, errors, warnings, inputs,
// analysis } ] }. Errors and warnings are { text, file, line, column }; analysis is the
// analyzer's JSON; the JVM side names what it finds.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const esbuild = await import(
  pathToFileURL(join(spec.toolDir, "node_modules", "esbuild", "lib", "main.js")).href
);
const messages = (list) =>
  list.map((m) => ({
    text: m.text,
    file: m.location ? m.location.file : "",
    line: m.location ? m.location.line : 0,
    column: m.location ? m.location.column + 1 : 0,
  }));

const context = vm.createContext({});
vm.runInContext(readFileSync(spec.analysis.acorn, "utf8"), context, { filename: "acorn.js" });
const analyze = vm.runInContext(readFileSync(spec.analysis.analyzer, "utf8"), context, {
  filename: "analyzer.js",
});
const [scriptOpen, scriptClose, moduleOpen, moduleClose] = spec.analysis.wrappers;
const analysis = (code) => {
  try {
    return JSON.parse(analyze(code, scriptOpen, scriptClose, moduleOpen, moduleClose, true));
  } catch (e) {
    return { failed: String(e && e.message) };
  }
};

const results = [];
for (const job of spec.jobs) {
  try {
    const r = await esbuild.build({
      entryPoints: [job.entry],
      absWorkingDir: spec.projectDir,
      bundle: true,
      format: "esm",
      platform: "neutral",
      conditions: spec.options.conditions.concat(job.conditions || []),
      mainFields: spec.options.mainFields,
      define: spec.options.define,
      external: [],
      minify: false,
      treeShaking: true,
      legalComments: "inline",
      charset: "utf8",
      write: false,
      metafile: true,
      logLevel: "silent",
      outfile: "bundle.js",
    });
    mkdirSync(dirname(job.out), { recursive: true });
    writeFileSync(job.out, r.outputFiles[0].contents);
    const code = r.outputFiles[0].text;
    results.push({
      id: job.id,
      ok: true,
      errors: [],
      warnings: messages(r.warnings),
      inputs: Object.keys(r.metafile.inputs).sort(),
      analysis: code.length <= spec.analysis.maxChars ? analysis(code) : null,
    });
  } catch (e) {
    results.push({
      id: job.id,
      ok: false,
      errors: messages(e.errors || [{ text: String(e && e.message) }]),
      warnings: messages(e.warnings || []),
      inputs: [],
    });
  }
}
process.stdout.write(JSON.stringify({ esbuild: esbuild.version, results }));
