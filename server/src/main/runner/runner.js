// The browser runner (docs/runners.md, "Browser runner"): runs a Code-node body on the same
// quickjs-ng build the JVM runs (the same wasm file), loading pack modules over the server's
// delivery route under the sandbox's loading contract, and answers with the JSON shape of
// POST /api/runs. Bundled by build.mjs at build time; nothing bundled is committed.
//
// What it shares with the host rather than re-implements: the entry wrappers and the analyzer that
// reads the code (host/analyzer.js on acorn, in a QuickJS of its own, as host/CodeAnalyzer.java
// does) and the prelude that hardens the realm (host/prelude.js: no eval, no function
// constructors, no timers, the sandbox's frames hidden). The rest mirrors host/RunExecution,
// RunModuleLoader, ErrorClassifier and packs/PackLoader and CatalogSnapshot.explain.
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import variant from "@jitl/quickjs-ng-wasmfile-release-sync";
import acornSource from "sandjar-text:acorn";
import analyzerSource from "sandjar-text:analyzer";
import preludeSource from "sandjar-text:prelude";

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

async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
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
   * public modules (a pack file may import one by its specifier). A generated facade in it is a
   * problem: its other half runs on a JVM host, which a browser does not have.
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
      if (facade) {
        return { problem: (f === root ? "it is " : "it imports " + facade.specifier + ", ") + facade.what + ", and the browser runner has no host side to run it" };
      }
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
  }

  resolve(importer, specifier) {
    if (!this.linking) {
      throw new ModuleFailure("dynamic import() is not allowed in the sandbox; import it statically at the top of the code");
    }
    if (specifier.startsWith("sandjar:bridge/")) {
      throw new ModuleFailure("a bridge module can only be imported by the module that declares it");
    }
    const from = this.files.get(importer);
    if (from) {
      const pack = from.fileId.substring(0, from.fileId.indexOf("::"));
      const file = from.fileId.substring(pack.length + 2);
      if (facadeOf(from)) {
        throw new ModuleFailure("a generated facade imports nothing but its own bridge");
      }
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
    const m = this.files.get(name);
    if (!m) return { error: "cannot import '" + name + "': module " + name + " was not resolved" };
    const facade = facadeOf(m);
    if (facade) {
      return { error: "cannot import '" + facade.specifier + "': it is " + facade.what + ", and the browser runner has no host side to run it" };
    }
    return m.source;
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
    loader = new RunLoader(closure);
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
    const factory = context.unwrapResult(context.evalCode("(c) => [() => ({ console: c })]", "sandjar:console.js"));
    const factories = context.unwrapResult(context.callFunction(factory, context.undefined, console));
    const names = context.unwrapResult(context.evalCode('["console"]', "sandjar:names.js"));
    const none = context.unwrapResult(context.evalCode("[]", "sandjar:none.js"));
    const codec = context.unwrapResult(context.evalCode("({ encode: () => [], decode: () => ({}) })", "sandjar:codec.js"));
    const refuse = context.newFunction("dispatch", () => {
      throw new Error("the browser runner has no host operations");
    });
    const installed = context.callFunction(install, context.undefined, refuse, codec, factories, names, none);
    context.unwrapResult(installed).dispose();
    [install, factory, factories, names, none, codec, refuse, console].forEach((h) => h.dispose());

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
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      // A failed run can leave handles behind; the whole instance is dropped with this run.
    }
  }
}
