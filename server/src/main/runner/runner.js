// The browser runner (docs/runners.md, "Browser runner"): runs a Code-node body on the same
// quickjs-ng build the JVM runs (the same wasm file), loading pack modules over the server's
// delivery route under the sandbox's loading contract, and answers with the JSON shape of
// POST /api/runs. Bundled by build.mjs at build time; nothing bundled is committed.
//
// What it shares with the host rather than re-implements: the entry wrappers and the analyzer that
// reads the code (host/analyzer.js on acorn, in a QuickJS of its own, as host/CodeAnalyzer.java
// does) and the prelude that hardens the realm (host/prelude.js: no eval, no function
// constructors, no timers, the sandbox's frames hidden), and the Fetch bridge's guest half
// (bridges/fetch.js, whose requests the server makes). The rest mirrors host/RunExecution,
// RunModuleLoader, BridgeDispatcher, ErrorClassifier and packs/PackLoader, PackTrust, WasmRunner
// and CatalogSnapshot.explain.
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import variant from "@jitl/quickjs-ng-wasmfile-release-sync";
import acornSource from "sandjar-text:acorn";
import analyzerSource from "sandjar-text:analyzer";
import preludeSource from "sandjar-text:prelude";
import fetchSource from "sandjar-text:fetch";

// host/EntryModule.java's wrappers, character for character.
const OPEN = "export default await (async function () {";
const CLOSE = "\n})();\n";
const SCRIPT_OPEN = '(async function () {"use strict";';
const SCRIPT_CLOSE = "\n})";
const FILENAME = "main.js";

const MIB = 1024 * 1024;
const PAGE = 65536;
// host/Sandbox.java: the engine's static data and QuickJS's stack beside the heap.
const BASE_MEMORY_BYTES = 6 * MIB;
const MIN_PAGES = 256;
const MAX_PAGES = 32768;

/** The limits a run may ask for: [default, ceiling] (docs/sandbox.md, "Limits"). */
export const LIMITS = Object.freeze({
  timeoutMs: [30_000, 600_000],
  memoryMb: [64, 512],
  stackBytes: [512 * 1024, 4 * MIB],
  codeChars: [1024 * 1024, 16 * MIB],
});

/** A request the runner refuses before anything runs (a bad limit, code that is not a string). */
export class RunnerRequestError extends Error {
  constructor(message) {
    super(message);
    this.name = "RunnerRequestError";
  }
}

let wasmModule; // the compiled engine, shared; every run instantiates it afresh
let analysisEngine; // {context, analyze} on an instance of its own

// The engine's wasm file sits beside this script.
async function compiledEngine() {
  if (!wasmModule) {
    wasmModule = WebAssembly.compileStreaming(fetch(new URL("quickjs.wasm", import.meta.url)));
    wasmModule.catch(() => {
      wasmModule = undefined; // a failed download is tried again by the next run
    });
  }
  return wasmModule;
}

/** A fresh engine instance whose memory cannot grow past `maxPages` (as the JVM caps growth). */
async function freshEngine(maxPages) {
  const module = await compiledEngine();
  const memory = new WebAssembly.Memory({ initial: MIN_PAGES, maximum: maxPages });
  return newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmModule: module, emscriptenModule: { wasmMemory: memory } }),
  );
}

async function analyzer() {
  if (!analysisEngine) {
    analysisEngine = (async () => {
      const qjs = await freshEngine(MAX_PAGES);
      const runtime = qjs.newRuntime();
      runtime.setMemoryLimit(256 * MIB);
      const context = runtime.newContext();
      context.unwrapResult(context.evalCode(acornSource, "acorn.js")).dispose();
      const analyze = context.unwrapResult(context.evalCode(analyzerSource, "analyzer.js"));
      return { context, analyze };
    })();
  }
  return analysisEngine;
}

/** host/CodeAnalyzer.parse: {syntaxError} or {script, imports, hoisted, hasExports, ...}. */
async function parse(code) {
  const { context, analyze } = await analyzer();
  const args = [code, SCRIPT_OPEN, SCRIPT_CLOSE, OPEN, CLOSE].map((s) => context.newString(s));
  args.push(context.false);
  try {
    const r = context.callFunction(analyze, context.undefined, ...args);
    if (r.error) {
      const e = context.dump(r.error);
      r.error.dispose();
      return { syntaxError: { message: "the code could not be analysed: " + e.name + ": " + e.message, line: 0, column: 0 } };
    }
    const json = context.getString(r.value);
    r.value.dispose();
    return JSON.parse(json);
  } finally {
    args.slice(0, 5).forEach((a) => a.dispose());
  }
}

/** host/EntryModule.build. */
async function buildEntry(code) {
  let body = code;
  if (code.startsWith("#!")) {
    let end = 0;
    while (end < code.length && "\n\r\u2028\u2029".indexOf(code[end]) < 0) end++;
    body = " ".repeat(end) + code.substring(end);
  }
  const script = (parsed, imports) => ({
    source: SCRIPT_OPEN + body + SCRIPT_CLOSE,
    shift: utf8Length(SCRIPT_OPEN), script: true, wrapped: true, parsed, imports,
  });
  if (!code.includes("import") && !code.includes("export")) return script(false, []);
  const p = await parse(code);
  if (p.syntaxError) return { syntaxError: p.syntaxError };
  if (p.script) return script(true, []);
  const imports = p.imports.map((i) => i.specifier);
  if (p.hasExports) return { source: code, shift: 0, script: false, wrapped: false, parsed: true, imports };
  const chars = body.split("");
  for (const i of p.imports) {
    for (let k = i.start; k < i.end; k++) {
      if ("\n\r\u2028\u2029".indexOf(chars[k]) < 0) chars[k] = " ";
    }
  }
  const prefix = p.hoisted + OPEN;
  return { source: prefix + chars.join("") + CLOSE, shift: utf8Length(prefix), script: false, wrapped: true, parsed: true, imports };
}

const utf8Length = (s) => new TextEncoder().encode(s).length;

// ---- the catalog over HTTP ----

/** packs/PackNames. */
const PACKAGE_NAME = /^(@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

function packageOf(specifier) {
  const slash = specifier.indexOf("/");
  if (specifier.startsWith("@")) {
    if (slash < 0) return specifier;
    const second = specifier.indexOf("/", slash + 1);
    return second < 0 ? specifier : specifier.substring(0, second);
  }
  return slash < 0 ? specifier : specifier.substring(0, slash);
}

/**
 * Why the catalog does not serve `specifier`: packs/CatalogSnapshot.explain, for what the pack
 * list shows (a withheld, duplicated or refused pack is, to a runner, a pack that is not there).
 */
function explain(specifier, modules) {
  if (specifier === "") return "an empty specifier names no module";
  if (specifier.startsWith("node:")) return "Node built-in modules are not available in the sandbox";
  if (/^[/.]/.test(specifier) || /[\\%:]/.test(specifier)) {
    return "only pack specifiers can be imported, not paths, URLs or internal module ids";
  }
  const pkg = packageOf(specifier);
  if (pkg.length > 214 || !PACKAGE_NAME.test(pkg)) return "'" + pkg + "' is not a valid package name";
  const offered = modules.filter((m) => m.pack === pkg).map((m) => m.specifier);
  if (offered.length === 0) return "no installed pack provides it; install the pack " + pkg;
  const name = specifier === pkg ? "." : specifier.substring(pkg.length + 1);
  return "pack " + pkg + " has no public module '" + name + "'"
    + (name.includes("/") || name.endsWith(".js") ? " (files inside a pack cannot be imported)" : "")
    + "; it offers: " + offered.sort().join(", ");
}

async function sha256Hex(data) {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Verified closures by root specifier and graph digest. The digest covers every file the root
 * reaches, so a closure is reused only while the pack list names the same digest; a new pack
 * version moves it and the closure is fetched (and verified) again.
 */
const closures = new Map();

class Catalog {
  constructor(base, token) {
    this.base = base;
    this.token = token;
  }

  async get(path, cache = "default") {
    const headers = this.token ? { Authorization: "Bearer " + this.token } : {};
    const response = await fetch(new URL(path, this.base), { headers, cache });
    if (response.status === 401) throw new RunnerRequestError("the server refused the token (401): give the runner a valid token");
    return response;
  }

  async modules() {
    if (!this.list) {
      const r = await this.get("api/packs", "no-store");
      if (!r.ok) throw new RunnerRequestError("the pack list answered " + r.status);
      this.list = (await r.json()).modules;
    }
    return this.list;
  }

  /**
   * One delivery: its body checked against X-Content-Sha256 before anything reads it, and its
   * graph digest against what the caller expects. A mismatch is never kept.
   */
  async deliver(id, expectedDigest) {
    try {
      return await this.fetchVerified(id, expectedDigest, "default");
    } catch (e) {
      if (!(e instanceof ModuleFailure)) throw e;
      // What the browser's cache held may be what failed: ask the server itself, once.
      return this.fetchVerified(id, expectedDigest, "reload");
    }
  }

  async fetchVerified(id, expectedDigest, cache) {
    const r = await this.get("api/sandbox-modules/" + encodeId(id), cache);
    if (r.status === 404) return null;
    if (!r.ok) throw new ModuleFailure("'" + id + "' cannot be delivered: the server answered " + r.status);
    const sha = r.headers.get("X-Content-Sha256");
    const digest = r.headers.get("X-Content-Digest");
    const body = await r.text();
    const actual = await sha256Hex(body);
    if (!sha || actual !== sha.toLowerCase()) {
      throw new ModuleFailure("'" + id + "' was refused: its body does not match its X-Content-Sha256 (" + sha + ", the body hashes to " + actual + ")");
    }
    if (expectedDigest && digest !== expectedDigest) {
      throw new ModuleFailure("'" + id + "' was refused: its graph digest " + digest + " is not the catalog's " + expectedDigest);
    }
    const deps = (r.headers.get("X-Sandbox-Module-Dependencies") || "")
      .split(", ").filter((s) => s !== "").map(decodeURIComponent);
    const record = {
      id, fileId: r.headers.get("X-Sandbox-File-Id"), source: body, sha256: actual, digest, deps,
      host: r.headers.get("X-Sandbox-Host-Module"),
    };
    return record;
  }

  /**
   * A WebAssembly module's binary (`<specifier>::wasm`), checked against its X-Content-Sha256 and
   * its facade's graph digest (which names that hash) before it is compiled; a mismatch is fetched
   * once more past the browser's cache, then refused.
   */
  async wasm(specifier, facadeDigest) {
    const id = specifier + "::wasm";
    for (const cache of ["default", "reload"]) {
      const r = await this.get("api/sandbox-modules/" + encodeId(id), cache);
      if (!r.ok) throw new ModuleFailure("'" + id + "' cannot be delivered: the server answered " + r.status);
      const bytes = new Uint8Array(await r.arrayBuffer());
      if (bytes.length > MAX_WASM_BYTES) {
        throw new ModuleFailure("'" + id + "' was refused: it is " + bytes.length + " bytes; the limit is " + MAX_WASM_BYTES);
      }
      const sha = r.headers.get("X-Content-Sha256");
      const digest = r.headers.get("X-Content-Digest");
      const actual = await sha256Hex(bytes);
      let why = null;
      if (!sha || actual !== sha.toLowerCase()) {
        why = "'" + id + "' was refused: its body does not match its X-Content-Sha256 (" + sha + ", the body hashes to " + actual + ")";
      } else if (digest !== facadeDigest) {
        why = "'" + id + "' was refused: its graph digest " + digest + " is not its facade's " + facadeDigest;
      }
      if (why) {
        if (cache === "reload") throw new ModuleFailure(why);
        continue;
      }
      const functions = new Map();
      for (const item of (r.headers.get("X-Sandbox-Wasm-Exports") || "").split(", ").filter((x) => x !== "")) {
        const m = /^(\S+) \(([a-z0-9,]*)\)->(\S+) (.*)$/s.exec(decodeURIComponent(item));
        if (!m) throw new ModuleFailure("'" + id + "' was refused: its X-Sandbox-Wasm-Exports is not the server's format");
        functions.set(m[1], { name: m[1], params: m[2] === "" ? [] : m[2].split(","), result: m[3], wasmName: m[4] });
      }
      return { module: await WebAssembly.compile(bytes), functions };
    }
  }

  /**
   * The declared specifiers' closures, fetched and verified before the guest starts (the catalog
   * contract is synchronous and fetching is not). Returns {problems} or {roots, files}.
   */
  async closure(specifiers) {
    const modules = await this.modules();
    const bySpecifier = new Map(modules.map((m) => [m.specifier, m]));
    const problems = [];
    for (const s of new Set(specifiers)) {
      if (!bySpecifier.has(s)) problems.push("'" + s + "': " + explain(s, modules));
    }
    if (problems.length) return { problems };
    const roots = new Map();
    const files = new Map();
    const entries = new Map();
    for (const s of new Set(specifiers)) {
      const key = s + " " + bySpecifier.get(s).graphDigest;
      let kept = closures.get(key);
      if (!kept) {
        kept = await this.fetchClosure(s, modules, bySpecifier);
        if (!kept.problem) closures.set(key, kept);
      }
      if (kept.problem) {
        problems.push("'" + s + "': " + kept.problem);
        continue;
      }
      roots.set(s, kept.root);
      kept.files.forEach((f) => files.set(f.fileId, f));
      kept.entries.forEach((id, spec) => entries.set(spec, id));
    }
    return problems.length ? { problems } : { roots, files, entries };
  }

  /**
   * One root's closure: every file its dependency headers name, and the graph ids of its pack's
   * public modules (a pack file may import one by its specifier). A WebAssembly facade's binary is
   * fetched and verified with it; a host facade's calls go to the server when the guest makes them.
   */
  async fetchClosure(s, modules, bySpecifier) {
    const root = await this.deliver(s, bySpecifier.get(s).graphDigest);
    if (!root) return { problem: "no installed pack provides it; install the pack " + packageOf(s) };
    const own = new Map([[root.fileId, root]]);
    const queue = [root];
    while (queue.length) {
      const m = queue.shift();
      for (const dep of m.deps) {
        if (own.has(dep)) continue;
        const d = await this.deliver(dep, null);
        if (!d) throw new ModuleFailure("'" + dep + "', which " + m.fileId + " imports, is not delivered");
        own.set(dep, d);
        queue.push(d);
      }
    }
    for (const f of own.values()) {
      const facade = facadeOf(f);
      if (!facade) continue;
      const m = /^import host from "sandjar:bridge\/([^"]+)";$/m.exec(f.source);
      if (!m) throw new ModuleFailure("'" + f.id + "' was refused: a generated facade that names no bridge");
      f.bridge = m[1];
      f.specifier = facade.specifier;
      if (!f.host) f.wasm = await this.wasm(facade.specifier, f.digest);
    }
    const entries = new Map();
    const pack = packageOf(s);
    if (own.size > 1) {
      for (const m of modules) {
        if (m.pack !== pack) continue;
        const e = m.specifier === s ? root : await this.deliver(m.specifier, m.graphDigest);
        if (e && own.has(e.fileId)) entries.set(m.specifier, e.fileId);
      }
    }
    return { root, files: [...own.values()], entries };
  }
}

/** A generated facade's specifier and what it fronts, or null for a file the guest runs itself. */
function facadeOf(record) {
  if (!record.fileId.endsWith("::facade")) return null;
  const specifier = record.fileId.substring(0, record.fileId.length - "::facade".length);
  return { specifier, what: record.host ? "a host module (" + record.host + ")" : "a WebAssembly module" };
}

class ModuleFailure extends Error {}

const BRIDGE_MODULE = "sandjar:bridge/";

/** packs/PackFiles.MAX_WASM_BYTES: the largest WebAssembly binary discovery reads. */
const MAX_WASM_BYTES = 4 * MIB;

// ---- the guard of untrusted pack code: packs/PackTrust, the same names and the same text ----

const GUARD_MODULE = "sandjar-packs::guard";

/** PackTrust.DEFAULT_WITHHELD. */
const WITHHELD = ["fetch", "workspace", "getSecret", "secrets", "progress", "video", "media", "image", "createCanvas", "audio"];
const GLOBAL_OBJECT_NAMES = ["globalThis", "self", "global"];

/** PackTrust.STANDARD_GLOBALS. */
const STANDARD_GLOBALS = [
  "AggregateError", "Array", "ArrayBuffer", "Atomics", "BigInt", "BigInt64Array", "BigUint64Array",
  "Boolean", "DataView", "Date", "Error", "EvalError", "FinalizationRegistry", "Float16Array",
  "Float32Array", "Float64Array", "Function", "Infinity", "Int16Array", "Int32Array", "Int8Array",
  "Iterator", "JSON", "Map", "Math", "NaN", "Number", "Object", "Promise", "Proxy", "RangeError",
  "ReferenceError", "Reflect", "RegExp", "Set", "SharedArrayBuffer", "String", "Symbol",
  "SyntaxError", "TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array",
  "Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "decodeURI", "decodeURIComponent",
  "encodeURI", "encodeURIComponent", "escape", "isFinite", "isNaN", "parseFloat", "parseInt",
  "queueMicrotask", "undefined", "unescape",
];

/** PackTrust.GUARD_SOURCE, character for character. */
const GUARD_SOURCE = "// Generated by Sandjar: the guard of untrusted pack code (docs/packs.md, \"Trust\").\n"
  + "Error.prepareStackTrace = undefined;\n"
  + "Object.defineProperty(Error, \"prepareStackTrace\", { value: undefined, writable: false, enumerable: false, configurable: false });\n"
  + "export const safeGlobal = Object.freeze({\n"
  + STANDARD_GLOBALS.map((n) => "  " + n + ": typeof " + n + " === \"undefined\" ? undefined : " + n + ",\n").join("")
  + "});\n";

/**
 * PackTrust.guardUnparsed: the guard on the file's first line, shadowing every withheld name the
 * file can name. (The JVM asks its parser first and leaves a name the file declares itself to the
 * file; here such a file fails to load with a redeclaration error naming it, as a guarded npm
 * bundle does on the JVM.)
 */
function guardPrefix(source) {
  const escapes = source.includes("\\u");
  const names = WITHHELD.concat(GLOBAL_OBJECT_NAMES).filter((n) => escapes || source.includes(n));
  const global = names.filter((n) => GLOBAL_OBJECT_NAMES.includes(n)).map((n) => "safeGlobal as " + n);
  const shadows = names.filter((n) => !GLOBAL_OBJECT_NAMES.includes(n)).map((n) => n + " = undefined");
  let s = "import \"" + GUARD_MODULE + "\"; ";
  if (global.length) s += "import { " + global.join(", ") + " } from \"" + GUARD_MODULE + "\"; ";
  if (shadows.length) s += "const " + shadows.join(", ") + "; ";
  return s;
}

/** A delivery id in a path: percent-encoded outside A-Za-z0-9@/:._~- (server/ModuleIds). */
const encodeId = (id) =>
  Array.from(new TextEncoder().encode(id), (b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9@/:._~-]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }).join("");

/** Joins a relative specifier to the importing file's directory; null when it leaves the pack. */
function sibling(fromFile, specifier) {
  const parts = fromFile.split("/");
  parts.pop();
  for (const p of specifier.split("/")) {
    if (p === "." || p === "") continue;
    if (p === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(p);
  }
  return parts.join("/");
}

/**
 * The run's loader (host/RunModuleLoader + packs/PackLoader): the user's code may import exactly
 * its declared specifiers, a pack file exactly its delivered dependencies, and nothing at all
 * once the entry has linked (a dynamic import()).
 */
class RunLoader {
  constructor(closure) {
    this.roots = (closure && closure.roots) || new Map();
    this.files = (closure && closure.files) || new Map();
    this.entries = (closure && closure.entries) || new Map();
    this.linking = false;
    this.refused = new Map();
    this.count = 0;
    this.bridgeSources = new Map();
    this.trusted = (closure && closure.trusted) || new Set();
    // Set by the run once its realm is ready: makes a facade's bridge, returns its module's source.
    this.openBridge = () => {
      throw new ModuleFailure("the run has no bridges");
    };
    // Set by the run: hides a facade's frames and source from the guest, as the prelude's trust().
    this.hide = () => {};
  }

  /** Whether a pack's files are served with the guard: every pack not shipped or trusted. */
  guarded(pack) {
    return !this.trusted.has(pack);
  }

  resolve(importer, specifier) {
    if (!this.linking) {
      throw new ModuleFailure("dynamic import() is not allowed in the sandbox; import it statically at the top of the code");
    }
    const from = this.files.get(importer);
    if (specifier.startsWith(BRIDGE_MODULE)) {
      const name = specifier.substring(BRIDGE_MODULE.length);
      if (!from || from.bridge !== name) {
        throw new ModuleFailure("a bridge module can only be imported by the module that declares it");
      }
      if (!this.bridgeSources.has(specifier)) {
        this.bridgeSources.set(specifier, this.openBridge(from));
      }
      return specifier;
    }
    if (from) {
      const pack = from.fileId.substring(0, from.fileId.indexOf("::"));
      const file = from.fileId.substring(pack.length + 2);
      if (facadeOf(from)) {
        throw new ModuleFailure("a generated facade imports nothing but its own bridge");
      }
      if (specifier === GUARD_MODULE && this.guarded(pack)) return GUARD_MODULE;
      let target = null;
      if (specifier.startsWith("./") || specifier.startsWith("../")) {
        const path = sibling(file, specifier);
        target = path === null ? null : pack + "::" + path;
      } else if (packageOf(specifier) === pack) {
        target = this.entries.get(specifier) || null;
      }
      if (target === null || !from.deps.includes(target) || !this.files.has(target)) {
        throw new ModuleFailure(pack + " " + file + " may import only its own pack's files and modules, read from its imports and re-exports when the pack was discovered");
      }
      return target;
    }
    if (importer.includes("::")) throw new ModuleFailure("the importing module is not part of this run");
    const root = this.roots.get(specifier);
    if (!root) throw new ModuleFailure("no module is available under that name");
    return root.fileId;
  }

  normalize(importer, specifier) {
    try {
      return this.resolve(importer, specifier);
    } catch (e) {
      // As the JVM does: QuickJS needs a name back; a reserved one makes the load fail with this.
      const name = "sandjar:refused:" + ++this.count;
      this.refused.set(name, "cannot import '" + specifier + "': " + e.message);
      return name;
    }
  }

  load(name) {
    const refused = this.refused.get(name);
    if (refused) return { error: refused };
    const bridge = this.bridgeSources.get(name);
    if (bridge) return bridge;
    if (name === GUARD_MODULE) return GUARD_SOURCE;
    const m = this.files.get(name);
    if (!m) return { error: "cannot import '" + name + "': module " + name + " was not resolved" };
    if (facadeOf(m)) {
      this.hide(name, m.source);
      return m.source;
    }
    const pack = m.fileId.substring(0, m.fileId.indexOf("::"));
    return this.guarded(pack) ? guardPrefix(m.source) + m.source : m.source;
  }
}

// ---- bridges: the host half of what the guest calls (host/BridgeDispatcher) ----

/** A bridge operation's failure, as the guest sees it: an Error with this name and code. */
class BridgeError extends Error {
  constructor(name, code, message) {
    super(message);
    this.errorName = name;
    this.code = code;
  }
}

const invalidArgument = (message) => new BridgeError("TypeError", "INVALID_ARGUMENT", message);

/** transport/GuestValues.describe, for a value in the transport's JSON. */
function describe(v) {
  if (v === null) return "null";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "a boolean";
  if (Array.isArray(v)) return "an array";
  switch (v.$sj) {
    case "undef": return "undefined";
    case "num": return "a number";
    case "bigint": return "a bigint";
    case "date": return "a Date";
    case "regexp": return "a RegExp";
    case "error": return "an Error";
    case "map": return "a Map";
    case "set": return "a Set";
    case "str": return "a string";
    case "bytes": return v.type === "Uint8Array" ? "a Uint8Array" : (v.type.startsWith("A") ? "an " : "a ") + v.type;
    default: return "an object";
  }
}

/** WasmBudgets.DEFAULTS, which are also its ceilings. */
const WASM_BUDGETS = Object.freeze({ callTimeoutMs: 5000, callsPerRun: 256, concurrentCalls: 2, runTimeMs: 30_000 });

/**
 * The bridge of a WebAssembly module (packs/WasmRunner): each call checks its arguments as the
 * host does, then runs on a worker of the run's own, on a fresh instance of the verified module,
 * and is stopped (the worker terminated) past the call timeout.
 */
function wasmBridge(name, specifier, wasm, run) {
  const ops = {};
  for (const f of wasm.functions.values()) {
    ops[f.name] = (args) => {
      const where = name + "." + f.name;
      if (args.length > f.params.length) {
        throw invalidArgument(where + " takes at most " + f.params.length + " argument(s), got " + args.length);
      }
      const own = specifier + " " + f.name;
      const values = f.params.map((type, i) => {
        const v = i < args.length ? args[i] : null;
        const param = "argument " + (i + 1) + " (arg" + i + ":" + type + ")";
        if (v === null || (v && v.$sj === "undef")) {
          throw invalidArgument(where + ": " + param + " is required" + (v === null ? "" : ", got undefined"));
        }
        if (type === "i32") {
          if (typeof v !== "number" || !Number.isInteger(v)) throw invalidArgument(where + ": " + param + " must be an integer, got " + describe(v));
          if (v < -2147483648 || v > 2147483647) {
            throw invalidArgument(where + ": " + param + " must be between -2147483648 and 2147483647, got " + describe(v));
          }
          return v;
        }
        if (typeof v === "number") return v;
        if (v.$sj === "num") return Number(v.v);
        throw invalidArgument(own + ": argument " + (i + 1) + " must be a number");
      });
      return run.wasmCall(own, wasm.module, f, values);
    };
  }
  return ops;
}

/** A run's WebAssembly calls: the budgets of packs/WasmBudgets, on workers it owns. */
class WasmCalls {
  constructor() {
    this.calls = 0;
    this.usedMs = 0;
    this.running = 0;
    this.waiting = [];
    this.idle = [];
    this.all = new Set();
    this.ended = false;
  }

  worker() {
    const w = this.idle.pop() || new Worker(new URL("wasm-worker.js", import.meta.url));
    this.all.add(w);
    return w;
  }

  async call(where, module, f, values) {
    if (this.calls >= WASM_BUDGETS.callsPerRun) {
      throw new BridgeError("WasmBudgetError", "WASM_CALL_LIMIT", where + ": a run may make at most " + WASM_BUDGETS.callsPerRun + " WebAssembly calls");
    }
    if (this.usedMs >= WASM_BUDGETS.runTimeMs) throw this.timeBudget(where);
    this.calls++;
    // At most concurrentCalls at a time; the rest wait in order, as on the JVM.
    while (this.running >= WASM_BUDGETS.concurrentCalls) {
      await new Promise((resolve) => this.waiting.push(resolve));
    }
    if (this.ended) throw new BridgeError("CancelledError", "CANCELLED", where + ": the run ended");
    this.running++;
    try {
      return await this.execute(where, module, f, values);
    } finally {
      this.running--;
      const next = this.waiting.shift();
      if (next) next();
    }
  }

  timeBudget(where) {
    return new BridgeError("WasmBudgetError", "WASM_TIME_BUDGET", where + ": the run's WebAssembly calls used their " + WASM_BUDGETS.runTimeMs + " ms together");
  }

  async execute(where, module, f, values) {
    const remaining = WASM_BUDGETS.runTimeMs - this.usedMs;
    if (remaining <= 0) throw this.timeBudget(where);
    const timeout = Math.min(WASM_BUDGETS.callTimeoutMs, remaining);
    const w = this.worker();
    const started = performance.now();
    const answer = await new Promise((resolve) => {
      const timer = setTimeout(() => {
        w.terminate();
        this.all.delete(w);
        resolve({ timedOut: true });
      }, timeout);
      w.onmessage = (e) => {
        clearTimeout(timer);
        resolve(e.data);
      };
      w.onerror = (e) => {
        clearTimeout(timer);
        w.terminate();
        this.all.delete(w);
        resolve({ ok: false, kind: "error", message: e.message || "the worker failed" });
      };
      w.postMessage({ module, name: f.wasmName, args: values });
    });
    this.usedMs += performance.now() - started;
    if (answer.timedOut) {
      throw new BridgeError("TimeoutError", "WASM_TIMEOUT", where + ": ran longer than " + timeout + " ms and was stopped");
    }
    if (this.all.has(w)) {
      if (this.ended) {
        w.terminate();
      } else {
        this.idle.push(w);
      }
    }
    if (answer.ok) return f.result === "void" ? { undef: true } : { num: answer.value };
    if (answer.kind === "stack") throw new BridgeError("WasmTrap", "WASM_TRAP", where + ": trapped: call stack exhausted");
    if (answer.kind === "memory") throw new BridgeError("WasmTrap", "WASM_MEMORY", where + ": the host ran out of memory for the call");
    throw new BridgeError("WasmTrap", "WASM_TRAP", where + ": trapped: " + answer.message);
  }

  end() {
    this.ended = true;
    this.all.forEach((w) => w.terminate());
    this.all.clear();
    this.idle = [];
  }
}

/**
 * What the page asks the server to do for the guest (server/RunnerCalls): a small run under the
 * same token. Its answer's value is {value} or {error: {name, message, code}}.
 */
async function serverCall(base, token, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  let r;
  try {
    r = await fetch(new URL(path, base), { method: "POST", headers, body: JSON.stringify(body), cache: "no-store" });
  } catch (e) {
    throw new BridgeError("HostError", "HOST_ERROR", path + " could not be reached: " + e.message);
  }
  const text = await r.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  if (!r.ok) {
    const why = json && typeof json.message === "string" ? json.message : text;
    throw new BridgeError("HostError", "HOST_ERROR", "the server refused " + path + " (" + r.status + "): " + why);
  }
  if (!json.ok) {
    const e = json.error;
    throw new BridgeError(e.name, "HOST_ERROR", e.message);
  }
  const v = json.value;
  if (v.error) throw new BridgeError(v.error.name, v.error.code, v.error.message);
  return v.value;
}

/** A host module's bridge: every call is the server's (POST /api/runner/host-calls). */
function hostBridge(specifier, run) {
  return new Proxy({}, {
    get: (target, op) => (typeof op !== "string" ? undefined : (args) => serverCall(run.base, run.token, "api/runner/host-calls", { module: specifier, export: op, args }).then((v) => ({ json: JSON.stringify(v) }))),
  });
}

const fromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** The fetch bridge: the server's Fetch (POST /api/runner/fetches) behind the host's fetch.js. */
function fetchBridge(run) {
  return {
    request: (args) => {
      const [url, method, headers, bytes, text, truncate] = args;
      const body = { url, method, headers, bytes: bytes === undefined ? null : bytes, text: text === undefined ? null : text, truncate: truncate === true };
      if (run.allowPrivateNetwork) body.allowPrivateNetwork = true;
      return serverCall(run.base, run.token, "api/runner/fetches", body).then((v) => ({ json: JSON.stringify(v) }));
    },
    decode: (args) => {
      const b = args[0];
      if (!b || b.$sj !== "bytes" || b.base64 === undefined) {
        throw invalidArgument("fetch.decode: argument 1 (body) must be a Uint8Array or ArrayBuffer, got " + describe(b === undefined ? null : b));
      }
      return { str: new TextDecoder().decode(fromBase64(b.base64)) };
    },
  };
}

/** Asks the server whether the token's policy grants fetch (a 403 names what it allows). */
async function probeFetch(base, token, allowPrivateNetwork) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const body = allowPrivateNetwork ? { probe: true, allowPrivateNetwork: true } : { probe: true };
  const r = await fetch(new URL("api/runner/fetches", base), { method: "POST", headers, body: JSON.stringify(body), cache: "no-store" });
  if (r.status === 401) throw new RunnerRequestError("the server refused the token (401): give the runner a valid token");
  if (!r.ok) {
    let why = "";
    try {
      why = (await r.json()).message;
    } catch {
      why = "";
    }
    throw new RunnerRequestError("the server refused fetch (" + r.status + "): " + why);
  }
}

// ---- results ----

const result = (id, fields) => ({ id, ...fields });

function failure(id, kind, name, message, logs, stats, line = 0, column = 0, stack = "") {
  return result(id, { ok: false, error: { kind, name, message, line, column, stack }, logs, stats });
}

/** host/ErrorClassifier: kind, name, message and the user's position. */
function classify(e, ctx) {
  if (e.interrupted && ctx.timedOut) {
    return ["TIMEOUT", "TimeoutError", "the run used its CPU budget (timeout) of " + ctx.timeoutMs + " ms", "", 0, 0];
  }
  const { name, message } = e;
  if (ctx.growthRefused && name === "object" && message === "null") {
    return ["MEMORY", "InternalError", "out of memory: the heap was too full for the engine to make its error object (the guest heap limit, heapBytes, is " + ctx.heapBytes + ")", "", 0, 0];
  }
  if ((name === "InternalError" || name === "RangeError") && message.includes("out of memory")) {
    return withPosition("MEMORY", name, message + " (the guest heap limit, heapBytes, is " + ctx.heapBytes + ")", e.stack, ctx);
  }
  if (name === "RangeError" && message.includes("Maximum call stack size exceeded")) {
    return withPosition("STACK", name, message + " (the stack limit, stackBytes, is " + ctx.stackBytes + ")", e.stack, ctx);
  }
  if (name === "ReferenceError" && message.startsWith("cannot import")) {
    return withPosition("IMPORT", name, message, e.stack, ctx);
  }
  if (e.compiling && name === "SyntaxError") return withPosition("SYNTAX", name, message, e.stack, ctx);
  if (!e.stack) {
    const said = {
      string: "a string was thrown, not an Error: ", number: "a number was thrown, not an Error: ",
      bigint: "a bigint was thrown, not an Error: ", boolean: "a boolean was thrown, not an Error: ",
      symbol: "a symbol was thrown, not an Error: ",
    }[name];
    if (said !== undefined) return ["EXCEPTION", name, said + message, "", 0, 0];
    if (name === "undefined") return ["EXCEPTION", name, "undefined was thrown, not an Error", "", 0, 0];
    if (name === "function") return ["EXCEPTION", name, "a function was thrown, not an Error", "", 0, 0];
    if (name === "object") {
      return message === "null"
        ? ["EXCEPTION", "null", "null was thrown, not an Error", "", 0, 0]
        : ["EXCEPTION", name, "an object that is not an Error was thrown: " + message, "", 0, 0];
    }
  }
  return withPosition("EXCEPTION", name, message, e.stack, ctx);
}

function withPosition(kind, name, message, stack, ctx) {
  const own = new RegExp("\\(?" + escape(FILENAME) + ":(\\d+):\\d+\\)?\\s*$");
  const frames = (stack || "").split("\n").filter((f) => {
    if (f === "" || f.includes("sandjar:")) return false;
    const m = own.exec(f);
    return !(m && Number(m[1]) > ctx.userLines);
  });
  let line = 0;
  let column = 0;
  const mapped = frames.map((f) => f.replace(new RegExp(escape(FILENAME) + ":(\\d+):(\\d+)", "g"), (all, l, c) => {
    l = Number(l);
    c = Number(c);
    if (l === 1) c = Math.max(1, c - ctx.shift);
    if (line === 0) {
      line = l;
      column = c;
    }
    return FILENAME + ":" + l + ":" + c;
  }));
  return [kind, name, message, mapped.length ? mapped.join("\n") + "\n" : "", line, column];
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The result encoder, in the guest: the transport's JSON with its markers (docs/transport.md) for
// the values JSON cannot hold. Binary data is inlined as base64, as the HTTP answer does.
const ENCODER = `(function () {
  "use strict";
  const isError = typeof Error.isError === "function" ? Error.isError : (v) => v instanceof Error;
  const b64 = (bytes) => {
    const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let s = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      s += a[n >> 18 & 63] + a[n >> 12 & 63] + (i + 1 < bytes.length ? a[n >> 6 & 63] : "=") + (i + 2 < bytes.length ? a[n & 63] : "=");
    }
    return s;
  };
  function walk(v, seen) {
    switch (typeof v) {
      case "undefined": return { $sj: "undef" };
      case "number":
        if (Number.isNaN(v)) return { $sj: "num", v: "NaN" };
        if (v === Infinity) return { $sj: "num", v: "Infinity" };
        if (v === -Infinity) return { $sj: "num", v: "-Infinity" };
        if (Object.is(v, -0)) return { $sj: "num", v: "-0" };
        return v;
      case "bigint": return { $sj: "bigint", v: String(v) };
      case "string": case "boolean": return v;
      case "function": throw new TypeError("a function cannot leave the sandbox");
      case "symbol": throw new TypeError("a symbol cannot leave the sandbox");
    }
    if (v === null) return null;
    if (seen.includes(v)) throw new TypeError("the value has a cycle");
    seen = seen.concat([v]);
    if (v instanceof Date) { const t = v.getTime(); return { $sj: "date", v: Number.isNaN(t) ? null : t }; }
    if (v instanceof RegExp) return { $sj: "regexp", source: v.source, flags: v.flags };
    if (isError(v)) return { $sj: "error", name: String(v.name), message: String(v.message), stack: String(v.stack || "") };
    if (v instanceof Map) return { $sj: "map", v: Array.from(v, ([k, x]) => [walk(k, seen), walk(x, seen)]) };
    if (v instanceof Set) return { $sj: "set", v: Array.from(v, (x) => walk(x, seen)) };
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      const type = v instanceof ArrayBuffer ? "ArrayBuffer" : v.constructor.name;
      const bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      return { $sj: "bytes", type, base64: b64(bytes) };
    }
    if (Array.isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(i in v ? walk(v[i], seen) : { $sj: "undef" });
      return out;
    }
    const out = {};
    for (const k of Object.keys(v)) out[k] = walk(v[k], seen);
    return Object.prototype.hasOwnProperty.call(out, "$sj") ? { $sj: "obj", v: out } : out;
  }
  return (v) => JSON.stringify(walk(v, []));
})()`;

// The transport's JSON (with inlined base64) back into guest values: what bridges answer.
const DECODER = `(function () {
  "use strict";
  const bytes = (b64) => {
    const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const clean = b64.replace(/=+$/, "");
    const out = new Uint8Array(Math.floor(clean.length * 3 / 4));
    let bits = 0, n = 0, j = 0;
    for (let i = 0; i < clean.length; i++) {
      bits = (bits << 6) | a.indexOf(clean[i]);
      n += 6;
      if (n >= 8) { n -= 8; out[j++] = (bits >> n) & 255; }
    }
    return out;
  };
  const typed = { Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
    Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array };
  function revive(v) {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(revive);
    switch (v.$sj) {
      case undefined: {
        const out = {};
        for (const k of Object.keys(v)) out[k] = revive(v[k]);
        return out;
      }
      case "undef": return undefined;
      case "num": return Number(v.v);
      case "bigint": return BigInt(v.v);
      case "date": return new Date(v.v === null ? NaN : v.v);
      case "regexp": return new RegExp(v.source, v.flags);
      case "error": { const e = new Error(v.message); e.name = v.name; return e; }
      case "map": return new Map(v.v.map(([k, x]) => [revive(k), revive(x)]));
      case "set": return new Set(v.v.map(revive));
      case "obj": { const out = {}; for (const k of Object.keys(v.v)) out[k] = revive(v.v[k]); return out; }
      case "bytes": {
        const b = bytes(v.base64);
        if (v.type === "Uint8Array") return b;
        if (v.type === "ArrayBuffer") return b.buffer;
        if (v.type === "DataView") return new DataView(b.buffer);
        const T = typed[v.type];
        return T ? new T(b.buffer) : b;
      }
      default: throw new TypeError("an unknown transport marker: " + v.$sj);
    }
  }
  return (json) => revive(JSON.parse(json));
})()`;

// A bridge failure as the guest sees it (host/BridgeDispatcher.errorValue): an Error of the named
// class when it is a standard one, else an Error with that name, and its code.
const MAKE_ERROR = `(function () {
  "use strict";
  const classes = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
  return (name, message, code) => {
    const C = Object.prototype.hasOwnProperty.call(classes, name) ? classes[name] : Error;
    const e = new C(message);
    if (C === Error && name !== "Error") e.name = name;
    e.code = code;
    return e;
  };
})()`;

/** host/Limits: host operations in flight at once. */
const PENDING_OPERATIONS = 1000;

// What the guest threw, as host/ThrownValues names it: an Error's name, message and stack; any
// other value by its type.
const THROWN = `(function () {
  "use strict";
  const isError = typeof Error.isError === "function" ? Error.isError : (v) => v instanceof Error;
  return (e) => {
    if (e === null) return JSON.stringify({ name: "object", message: "null", stack: "" });
    if (typeof e !== "object" && typeof e !== "function") {
      return JSON.stringify({ name: typeof e, message: String(e), stack: "" });
    }
    if (typeof e === "function") return JSON.stringify({ name: "function", message: "", stack: "" });
    let name, message, stack;
    try { name = String(e.name); message = String(e.message); stack = isError(e) ? String(e.stack || "") : ""; }
    catch { name = "object"; message = "[object]"; stack = ""; }
    if (!isError(e)) {
      let text;
      try { text = JSON.stringify(e); } catch { text = String(e); }
      if (e.name === undefined && e.message === undefined) return JSON.stringify({ name: "object", message: text, stack: "" });
    }
    return JSON.stringify({ name, message, stack });
  };
})()`;

function limitsOf(asked) {
  const out = {};
  for (const key of Object.keys(asked || {})) {
    if (!(key in LIMITS)) {
      throw new RunnerRequestError("limits has an unknown field '" + key + "'; the fields are " + Object.keys(LIMITS).sort().join(", "));
    }
  }
  for (const [key, [dflt, ceiling]] of Object.entries(LIMITS)) {
    const v = asked && asked[key] !== undefined ? asked[key] : dflt;
    if (!Number.isInteger(v) || v < 1) throw new RunnerRequestError("limits." + key + " must be a whole number >= 1, got " + v);
    if (v > ceiling) throw new RunnerRequestError("limits." + key + " (" + v + ") must be <= " + ceiling);
    out[key] = v;
  }
  return out;
}

let runs = 0;

/**
 * Runs one Code-node body. `options`: {token, limits: {timeoutMs, memoryMb, stackBytes, codeChars},
 * base (the server's address, default: this page's origin)}. Answers POST /api/runs's JSON:
 * {id, ok, value | error: {kind, name, message, line, column, stack}, logs, stats}.
 */
export async function run(code, options = {}) {
  const started = performance.now();
  const id = "browser-" + ++runs;
  if (typeof code !== "string") throw new RunnerRequestError("code must be a string");
  const limits = limitsOf(options.limits);
  if (code.length > limits.codeChars) {
    throw new RunnerRequestError("the code is " + code.length + " characters; the limit (codeChars) is " + limits.codeChars);
  }
  const base = new URL(options.base || "/", location.href);
  const logs = [];
  const stats = () => ({ wallMs: Math.round(performance.now() - started), runner: "browser" });
  const entry = await buildEntry(code);
  const catalog = new Catalog(base, options.token);
  const fetchAsked = options.capabilities && options.capabilities.fetch;
  const allowPrivateNetwork = !!(fetchAsked && fetchAsked.allowPrivateNetwork);
  if (fetchAsked) await probeFetch(base, options.token, allowPrivateNetwork);
  let loader = new RunLoader();
  if (entry.imports && entry.imports.length) {
    let closure;
    try {
      closure = await catalog.closure(entry.imports);
    } catch (e) {
      if (!(e instanceof ModuleFailure)) throw e;
      closure = { problems: [e.message] };
    }
    if (closure.problems) {
      return failure(id, "IMPORT", "ImportError", closure.problems.join("; "), [], null);
    }
    // Shipped packs and the ones the caller names are trusted; every other pack is guarded.
    const trusted = new Set(options.trust || []);
    (await catalog.modules()).forEach((m) => m.shipped && trusted.add(m.pack));
    loader = new RunLoader({ ...closure, trusted });
  }
  if (entry.syntaxError) {
    const s = entry.syntaxError;
    return failure(id, "SYNTAX", "SyntaxError", s.message, logs, stats(), s.line, s.column);
  }
  const heapBytes = limits.memoryMb * MIB;
  const pages = Math.max(MIN_PAGES, Math.min(MAX_PAGES, Math.ceil((BASE_MEMORY_BYTES + heapBytes) / PAGE)));
  const qjs = await freshEngine(pages);
  const runtime = qjs.newRuntime();
  const ctx = {
    timeoutMs: limits.timeoutMs, heapBytes, stackBytes: limits.stackBytes, timedOut: false,
    growthRefused: false, shift: entry.shift,
    userLines: entry.wrapped ? code.split(/\r\n|\r|\n|\u2028|\u2029/).length : Infinity,
  };
  // The CPU budget, counted only while the guest runs (waiting costs nothing), as on the JVM;
  // a browser has no thread CPU clock, so it is the elapsed time of those stretches.
  let spent = 0;
  let since = 0;
  const inGuest = (fn) => {
    since = performance.now();
    try {
      return fn();
    } finally {
      spent += performance.now() - since;
      since = 0;
    }
  };
  runtime.setInterruptHandler(() => {
    if (since && spent + performance.now() - since > limits.timeoutMs) ctx.timedOut = true;
    return ctx.timedOut;
  });
  runtime.setMemoryLimit(heapBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const context = runtime.newContext();
  const pending = new Set();
  const handles = [];
  const wasmCalls = new WasmCalls();
  let ended = false;
  try {
    // A refused import fails as on the JVM: a ReferenceError "cannot import '<specifier>': why".
    const makeReference = context.unwrapResult(context.evalCode("(m) => new ReferenceError(m)", "sandjar:errors.js"));
    const reference = (message) => {
      const m = context.newString(message);
      const e = context.unwrapResult(context.callFunction(makeReference, context.undefined, m));
      m.dispose();
      return e;
    };
    runtime.setModuleLoader(
      (name) => {
        const r = loader.load(name);
        return typeof r === "string" ? r : { error: reference(r.error) };
      },
      (importer, specifier) => loader.normalize(importer, specifier),
    );
    const encode = context.unwrapResult(context.evalCode(ENCODER, "sandjar:encoder.js"));
    const thrown = context.unwrapResult(context.evalCode(THROWN, "sandjar:thrown.js"));
    const decode = context.unwrapResult(context.evalCode(DECODER, "sandjar:decoder.js"));
    const makeError = context.unwrapResult(context.evalCode(MAKE_ERROR, "sandjar:error.js"));
    const setBridge = context.unwrapResult(context.evalCode(
      "(key, host) => { globalThis[Symbol.for(key)] = host; }", "sandjar:bridges.js"));
    handles.push(decode, makeError, setBridge);
    const console = context.newObject();
    for (const level of ["log", "info", "warn", "error", "debug"]) {
      const fn = context.newFunction(level, (...args) => {
        const text = args.map((a) => (context.typeof(a) === "string" ? context.getString(a) : JSON.stringify(context.dump(a)))).join(" ");
        logs.push({ level, message: text, timestamp: new Date().toISOString(), source: "guest" });
      });
      context.setProp(console, level, fn);
      fn.dispose();
    }
    // The prelude's install(): no bridges but the console, which the page defines as a bridge
    // would; then eval, the function constructors and timers are gone and the frames hidden.
    const install = context.unwrapResult(context.evalCode(preludeSource, "sandjar:prelude.js"));
    const bridgeNames = fetchAsked ? ["console", "fetch"] : ["console"];
    const factory = context.unwrapResult(context.evalCode(
      "(c) => [() => ({ console: c })" + (fetchAsked ? ", " + fetchSource.trim().replace(/;$/, "") : "") + "]",
      "sandjar:bridges/fetch.js"));
    const factories = context.unwrapResult(context.callFunction(factory, context.undefined, console));
    const names = context.unwrapResult(context.evalCode(JSON.stringify(bridgeNames), "sandjar:names.js"));
    const none = context.unwrapResult(context.evalCode("[]", "sandjar:none.js"));
    const codec = context.unwrapResult(context.callFunction(
      context.unwrapResult(context.evalCode("(e) => ({ encode: (args) => [e(args), null], decode: () => ({}) })", "sandjar:codec.js")),
      context.undefined, encode));
    // The bridges by dispatch index: console and fetch (when granted), then each facade's as the
    // loader opens it (host/RunModuleLoader appends them the same way).
    const run = { base, token: options.token, allowPrivateNetwork, wasmCall: (...a) => wasmCalls.call(...a) };
    const bridges = bridgeNames.map((name) => ({ name, ops: name === "fetch" ? fetchBridge(run) : {} }));
    const guestValue = (out) => {
      if (out.undef) return context.undefined;
      if (out.num !== undefined) return context.newNumber(out.num);
      if (out.str !== undefined) return context.newString(out.str);
      const json = context.newString(out.json);
      try {
        return context.unwrapResult(context.callFunction(decode, context.undefined, json));
      } finally {
        json.dispose();
      }
    };
    const guestError = (e) => {
      const args = [e.errorName, e.message, e.code].map((x) => context.newString(String(x)));
      try {
        return context.unwrapResult(context.callFunction(makeError, context.undefined, ...args));
      } finally {
        args.forEach((a) => a.dispose());
      }
    };
    const asBridgeError = (where, e) => (e instanceof BridgeError ? e
      : new BridgeError("HostError", "HOST_ERROR", where + " failed on the host (" + (e && e.name) + ")"));
    const dispatch = context.newFunction("dispatch", (iH, opH, argsH) => {
      const bridge = bridges[context.getNumber(iH)];
      const op = context.getString(opH);
      const where = bridge.name + "." + op;
      if (ended) {
        return { error: guestError(new BridgeError("CancelledError", "CANCELLED", "the run has been cancelled or has ended; no further host calls are possible")) };
      }
      const handler = Object.prototype.hasOwnProperty.call(bridge.ops, op) || bridge.host ? bridge.ops[op] : undefined;
      if (typeof handler !== "function") {
        return { error: guestError(new BridgeError("TypeError", "UNKNOWN_OPERATION", "bridge " + bridge.name + " has no operation '" + op + "'")) };
      }
      if (pending.size >= PENDING_OPERATIONS) {
        return { error: guestError(new BridgeError("RangeError", "PENDING_LIMIT", where + ": " + pending.size + " host operations are already in flight; the limit (pendingOperations) is " + PENDING_OPERATIONS)) };
      }
      let out;
      try {
        out = handler(JSON.parse(context.getString(argsH)));
      } catch (e) {
        return { error: guestError(asBridgeError(where, e)) };
      }
      if (!(out instanceof Promise)) return guestValue(out);
      const deferred = context.newPromise();
      const work = out.then(
        (v) => ({ ok: v }),
        (e) => ({ failed: asBridgeError(where, e) }),
      ).then((settled) => {
        pending.delete(work);
        if (ended) return; // the instance is dropped with the run
        const h = settled.failed ? guestError(settled.failed) : guestValue(settled.ok);
        if (settled.failed) deferred.reject(h);
        else deferred.resolve(h);
        if (h !== context.undefined) h.dispose();
        deferred.dispose();
      });
      pending.add(work);
      return deferred.handle;
    });
    const installed = context.callFunction(install, context.undefined, dispatch, codec, factories, names, none);
    const api = context.unwrapResult(installed);
    const makeHost = context.getProp(api, "makeHost");
    const trustFn = context.getProp(api, "trust");
    handles.push(api, makeHost, trustFn, dispatch);
    loader.hide = (name, source) => {
      const args = [context.newString(name), context.newString(source)];
      context.unwrapResult(context.callFunction(trustFn, context.undefined, ...args)).dispose();
      args.forEach((a) => a.dispose());
    };
    loader.openBridge = (facade) => {
      const index = bridges.length;
      bridges.push({
        name: facade.bridge,
        host: !!facade.host,
        ops: facade.host ? hostBridge(facade.specifier, run) : wasmBridge(facade.bridge, facade.specifier, facade.wasm, run),
      });
      const key = "sandjar.bridge." + facade.bridge;
      const i = context.newNumber(index);
      const n = context.newString(facade.bridge);
      const k = context.newString(key);
      const host = context.unwrapResult(context.callFunction(makeHost, context.undefined, i, n));
      context.unwrapResult(context.callFunction(setBridge, context.undefined, k, host)).dispose();
      [i, n, k, host].forEach((h) => h.dispose());
      return "const key = Symbol.for(\"" + key + "\");\nconst host = globalThis[key];\ndelete globalThis[key];\nexport default host;\n";
    };
    [install, factory, factories, names, none, codec, console].forEach((h) => h.dispose());

    const fail = (handle, compiling) => {
      const e = JSON.parse(context.getString(context.unwrapResult(context.callFunction(thrown, context.undefined, handle))));
      handle.dispose();
      e.compiling = compiling;
      e.interrupted = e.name === "InternalError" && e.message === "interrupted";
      const [kind, name, message, stack, line, column] = classify(e, ctx);
      return failure(id, kind, name, message, logs, stats(), line, column, stack);
    };
    const spentOut = () => ctx.timedOut || spent > limits.timeoutMs;
    const timeout = () => {
      ctx.timedOut = true;
      return fail(context.newError({ name: "InternalError", message: "interrupted" }), false);
    };

    loader.linking = !entry.script;
    let evaluated = inGuest(() => context.evalCode(entry.source, FILENAME, { type: entry.script ? "global" : "module" }));
    loader.linking = false;
    if (evaluated.error) {
      let r = fail(evaluated.error, true);
      if (r.error.kind === "SYNTAX" && !entry.parsed) {
        const p = await parse(code);
        if (p.syntaxError) {
          r = failure(id, "SYNTAX", "SyntaxError", p.syntaxError.message, logs, stats(), p.syntaxError.line, p.syntaxError.column);
        }
      }
      return r;
    }
    let promise = evaluated.value;
    if (entry.script) {
      const called = inGuest(() => context.callFunction(promise, context.undefined));
      promise.dispose();
      if (called.error) return fail(called.error, true);
      promise = called.value;
    }
    // The event loop: jobs until the entry settles; nothing else can settle it (no host work).
    for (;;) {
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        if (state.notAPromise) break;
        promise.dispose();
        promise = state.value;
        break;
      }
      if (state.type === "rejected") {
        promise.dispose();
        if (spentOut()) return timeout();
        return fail(state.error, false);
      }
      if (!runtime.hasPendingJob() && pending.size > 0) {
        // Host work in flight (a WebAssembly call, a call to the server): waiting costs no budget.
        await Promise.race(pending);
        continue;
      }
      if (!runtime.hasPendingJob()) {
        promise.dispose();
        if (spentOut()) return timeout();
        return failure(id, "EXCEPTION", "Error", "the code awaits a promise that nothing can settle: no job is queued and no host operation is in flight", logs, stats());
      }
      const jobs = inGuest(() => runtime.executePendingJobs());
      if (jobs.error) {
        promise.dispose();
        return spentOut() ? timeout() : fail(jobs.error, false);
      }
      if (spentOut()) {
        promise.dispose();
        return timeout();
      }
    }
    let value = promise;
    if (!entry.script) {
      value = context.getProp(promise, "default");
      promise.dispose();
    }
    const encoded = inGuest(() => context.callFunction(encode, context.undefined, value));
    value.dispose();
    if (spentOut()) return timeout();
    if (encoded.error) return fail(encoded.error, false);
    const json = context.getString(encoded.value);
    encoded.value.dispose();
    encode.dispose();
    thrown.dispose();
    return result(id, { ok: true, value: JSON.parse(json), logs, stats: stats() });
  } catch (e) {
    // The browser's own stack can run out inside the engine before QuickJS's stack check fires
    // (each guest call is several nested wasm frames on it). The instance is then unusable; it is
    // dropped with the run, which ends as QuickJS would have ended it.
    if (e instanceof RangeError && e.message.includes("Maximum call stack size exceeded")) {
      return failure(id, "STACK", "RangeError", "Maximum call stack size exceeded (the stack limit, stackBytes, is " + limits.stackBytes + ")", logs, stats());
    }
    if (e instanceof WebAssembly.RuntimeError) {
      return failure(id, "INTERNAL", "InternalError", "the engine failed: " + e.message, logs, stats());
    }
    throw e;
  } finally {
    ended = true;
    wasmCalls.end();
    try {
      handles.forEach((h) => h.alive && h.dispose());
      context.dispose();
      runtime.dispose();
    } catch {
      // A failed run can leave handles behind; the whole instance is dropped with this run.
    }
  }
}
