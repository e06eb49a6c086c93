// The guest half of a run's setup (see docs/sandbox.md). Evaluated once per prepared template,
// after the codec and before any user or module code. Its completion value is install(), which the
// host calls with the private dispatcher; the dispatcher is never a global, so once install()
// returns the guest can reach the host only through the functions the bridges chose to expose.
(() => {
  "use strict";
  const G = globalThis;
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, keys, freeze } =
    Object;
  const hasOwn = Object.prototype.hasOwnProperty;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const apply = Reflect.apply;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const stringStartsWith = String.prototype.startsWith;
  const functionToString = Function.prototype.toString;
  const ErrorCtor = Error;
  const isError = typeof Error.isError === "function" ? Error.isError : (v) => v instanceof ErrorCtor;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const ObjectCtor = Object;
  const RangeErrorCtor = RangeError;
  const trunc = Math.trunc;
  const internalErrorProto = typeof InternalError === "function" ? InternalError.prototype : null;

  const define = (name, value) =>
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  // No code from strings: eval is removed, and every function constructor reachable from a
  // function's .constructor (plain, async, generator, async generator) throws. The blocked
  // constructors keep the original prototypes, so `f instanceof Function` still holds.
  function harden() {
    // Only calling them differs: each keeps the original's name, length and prototype, and the
    // constructors' own prototype chain (AsyncFunction's [[Prototype]] is Function) points at the
    // blocked Function, never at the original.
    const samples = [function () {}, async function () {}, function* () {}, async function* () {}];
    const replaced = [];
    for (let i = 0; i < samples.length; i++) {
      const proto = getPrototypeOf(samples[i]);
      const original = proto.constructor;
      const name = original.name;
      const blocked = function () {
        throw new EvalError(`${name} is disabled in the sandbox: code cannot be created from strings`);
      };
      defineProperty(blocked, "name", { value: name });
      defineProperty(blocked, "length", { value: original.length });
      defineProperty(blocked, "prototype", { value: proto, writable: false, configurable: false });
      defineProperty(proto, "constructor", { value: blocked, writable: false, configurable: false });
      replaced[replaced.length] = [original, blocked];
      if (G.Function === original) {
        defineProperty(G, "Function", { value: blocked, writable: false, configurable: false });
      }
    }
    for (let i = 0; i < replaced.length; i++) {
      const parent = getPrototypeOf(replaced[i][0]);
      for (let j = 0; j < replaced.length; j++) {
        if (replaced[j][0] === parent) setPrototypeOf(replaced[i][1], replaced[j][1]);
      }
    }
    delete G.eval;
    // QuickJS has no timers of its own; these deletions guard against any that appear. A bridge's
    // sleep() is the only timer.
    for (const name of ["setTimeout", "setInterval", "setImmediate",
                        "clearTimeout", "clearInterval", "clearImmediate"]) {
      delete G[name];
    }
  }

  // Built-ins that fail past a size in ways the guest should never see, wrapped to fail with a
  // RangeError naming the bound instead (docs/sandbox.md, "Hardening"). Each wrapper is a method
  // (no prototype, not a constructor) with the original's name and length, installed with the
  // original's attributes; being this prelude's code, its toString reads as native.
  //
  // Array copies. QuickJS-ng's wasm32 build sizes the copy toSorted, toReversed, toSpliced and
  // with allocate in 32 bits: from 2^29 elements the size wraps, and the engine writes past a small
  // allocation (the instance aborts or traps) or fails without an exception (the guest catches a
  // value of typeof "unknown"). The wrapper reads the source's length once and refuses more than
  // MAX_COPY elements (2^26: the largest heap, 512 MiB, holds no more 8-byte slots, so nothing that
  // could fit is refused); the original then reads that same number from a view whose prototype is
  // the source, so a length getter or proxy cannot answer differently the second time. Elements
  // are read through the view: a getter on the source sees the view as its receiver.
  //
  // String normalize. The engine's normalization buffers come from an allocator that does not
  // throw: when one cannot grow, normalize fails with no exception (typeof "unknown" again), and
  // its other allocations fail with "out of memory". Both become one RangeError naming the heap
  // limit; the string's size that fails depends on the run's memoryMb.
  const MAX_COPY = 2 ** 26;
  const MAX_LENGTH = 2 ** 53 - 1;

  function toLength(value) {
    const n = +value;
    if (!(n > 0)) return 0;
    return n >= MAX_LENGTH ? MAX_LENGTH : trunc(n);
  }

  function replaceMethod(proto, name, wrapper) {
    const d = getOwnPropertyDescriptor(proto, name);
    defineProperty(wrapper, "name", { value: name });
    defineProperty(wrapper, "length", { value: d.value.length });
    defineProperty(proto, name, { value: wrapper, writable: d.writable, enumerable: d.enumerable,
                                  configurable: d.configurable });
  }

  function boundBuiltins() {
    const AP = Array.prototype;
    for (const name of ["toSorted", "toReversed", "toSpliced", "with"]) {
      const original = AP[name];
      if (typeof original !== "function") continue;
      const sorts = name === "toSorted";
      replaceMethod(AP, name, {
        copy(...args) {
          // The engine's own errors: no object to copy from; a comparator that is not a function,
          // before the length is read (the specification's order).
          if (this === null || this === undefined) return apply(original, this, args);
          if (sorts && args[0] !== undefined && typeof args[0] !== "function") {
            return apply(original, [], args);
          }
          const source = ObjectCtor(this);
          const length = toLength(source.length);
          if (length > MAX_COPY) {
            throw new RangeErrorCtor(`Array.prototype.${name}: a copy of ${length} elements; `
              + `at most ${MAX_COPY} (the sandbox's bound on array copies)`);
          }
          return apply(original, { __proto__: source, length }, args);
        },
      }.copy);
    }
    const normalize = String.prototype.normalize;
    replaceMethod(String.prototype, "normalize", {
      normalize(...args) {
        try {
          return apply(normalize, this, args);
        } catch (e) {
          if (typeof e === "unknown"
              || (isError(e) && getPrototypeOf(e) === internalErrorProto && e.message === "out of memory")) {
            throw new RangeErrorCtor("String.prototype.normalize: out of memory: the normalized "
              + "string does not fit the guest heap (the run's memory limit, memoryMb)");
          }
          throw e;
        }
      },
    }.normalize);
  }

  // The sandbox's own guest code (this prelude, the codec, the bridges' scripts, generated facades)
  // stays out of the guest's reach through two doors that would otherwise show it:
  // - Function.prototype.toString answers "[native code]" for a function whose source text is part
  //   of that code (by text: a user function written identically reads as native too);
  // - stack traces. The engine's hook (Error.prepareStackTrace, V8's API) is always this prelude's
  //   `prepare`: it drops the frames of the sandbox's files, and the native frames they called
  //   (the host's dispatcher among them), before the user's hook sees the call sites or the
  //   default text is written. The user's hook is kept behind an accessor, so
  //   `Error.prepareStackTrace` reads back what the user set, and is called with `this` Error.
  //   Hidden frames still count toward Error.stackTraceLimit.
  const trustedFiles = { __proto__: null };
  let internalText = "";
  const verdicts = new WeakMapCtor();

  function isInternalFile(file) {
    return typeof file === "string"
      && (call(stringStartsWith, file, "sandjar:") || trustedFiles[file] === true);
  }

  function trust(file, source) {
    trustedFiles[file] = true;
    internalText += "\u0000" + source;
  }

  function maskToString() {
    const masked = {
      toString() {
        const text = call(functionToString, this);
        let internal = call(weakGet, verdicts, this);
        if (internal === undefined) {
          internal = text !== "" && call(stringIndexOf, internalText, text) >= 0;
          call(weakSet, verdicts, this, internal);
        }
        if (!internal) return text;
        const d = getOwnPropertyDescriptor(this, "name");
        const name = d !== undefined && typeof d.value === "string" ? d.value : "";
        return "function " + name + "() {\n    [native code]\n}";
      },
    }.toString;
    defineProperty(Function.prototype, "toString",
                   { value: masked, writable: true, enumerable: false, configurable: true });
  }

  const append = (array, value) =>
    defineProperty(array, array.length, { value, writable: true, enumerable: true, configurable: true });

  function hideInternalFrames() {
    const engineHook = getOwnPropertyDescriptor(ErrorCtor, "prepareStackTrace");
    // The call sites' methods, taken before any user code can replace them.
    call(engineHook.set, ErrorCtor, (e, sites) => sites);
    const probe = new ErrorCtor().stack;
    call(engineHook.set, ErrorCtor, undefined);
    const site = getPrototypeOf(probe[0]);
    const { isNative, getFileName, getFunction, getFunctionName, getLineNumber, getColumnNumber } = site;

    let userHook;
    const shownSites = (sites) => {
      let hidden = null;
      let callerHidden = false;
      for (let i = sites.length - 1; i >= 0; i--) {
        if (!call(isNative, sites[i])) callerHidden = isInternalFile(call(getFileName, sites[i]));
        if (callerHidden) { // a native frame is hidden when its caller is
          if (hidden === null) hidden = { __proto__: null };
          hidden[i] = true;
        }
      }
      if (hidden === null) return sites; // the common case: nothing of the sandbox's on the stack
      const shown = [];
      for (let i = 0; i < sites.length; i++) {
        if (!hidden[i]) append(shown, sites[i]);
      }
      return shown;
    };
    // QuickJS's own text for a stack, written from the call sites.
    const format = (sites) => {
      let text = "";
      for (let i = 0; i < sites.length; i++) {
        const s = sites[i];
        const file = call(getFileName, s);
        const line = call(getLineNumber, s);
        const at = line === -1 ? "" : ":" + line + ":" + call(getColumnNumber, s);
        if (call(getFunction, s) === null) {
          text += "    at " + file + at + "\n"; // where a syntax error was found
          continue;
        }
        const name = call(getFunctionName, s);
        text += "    at " + (name ? name : "<anonymous>")
          + (call(isNative, s) ? " (native)" : " (" + (file === null ? "<null>" : file) + at + ")")
          + "\n";
      }
      return text;
    };
    function prepare(error, sites) {
      const shown = shownSites(sites);
      return typeof userHook === "function" ? apply(userHook, ErrorCtor, [error, shown]) : format(shown);
    }
    call(engineHook.set, ErrorCtor, prepare);
    const accessors = {
      get prepareStackTrace() { return userHook; },
      set prepareStackTrace(hook) { userHook = hook; },
    };
    const d = getOwnPropertyDescriptor(accessors, "prepareStackTrace");
    defineProperty(ErrorCtor, "prepareStackTrace",
                   { get: d.get, set: d.set, enumerable: false, configurable: true });
  }

  // The class a thrown value that is not an Error was made by, for the run's error name, or
  // undefined (not an object, an Error, or it names itself). May run the guest's getters and proxy
  // traps, under the run's budget; whatever they throw leaves the value unnamed.
  function thrownClass(value) {
    if (value === null || typeof value !== "object" || isError(value)) return undefined;
    try {
      const own = value.name;
      if (typeof own === "string" && own !== "") return undefined;
      const proto = getPrototypeOf(value);
      const ctor = proto === null ? undefined : getOwnPropertyDescriptor(proto, "constructor");
      const fn = ctor === undefined ? undefined : ctor.value;
      const name = typeof fn === "function" ? getOwnPropertyDescriptor(fn, "name") : undefined;
      return name !== undefined && typeof name.value === "string" && name.value !== "" ? name.value : undefined;
    } catch {
      return undefined;
    }
  }

  class ReservedGlobal extends Error {}
  ReservedGlobal.prototype.name = "SandjarReservedGlobal";

  // Runs once per prepared template (host/Template.java): the result is snapshotted, and every
  // run starts from it. defineGlobals() is the per-run part.
  // `sources` holds the texts of the sandbox's own guest code, for the toString mask.
  return function install(dispatch, codec, factories, names, sources) {
    for (let i = 0; i < sources.length; i++) internalText += "\u0000" + sources[i];
    const { encode, decode } = codec;
    const owners = {};
    const makeHost = (i, name) => freeze({
      name,
      call(op, ...args) {
        const encoded = encode(args, `${name}.${op}`);
        return dispatch(i, op, encoded[0], encoded[1]);
      },
    });
    for (let i = 0; i < factories.length; i++) {
      const name = names[i];
      const api = factories[i](makeHost(i, name));
      if (api === null || typeof api !== "object") {
        throw new TypeError(`bridge ${name} returned ${api === null ? "null" : typeof api}, not an object of globals`);
      }
      for (const key of keys(api)) {
        if (call(hasOwn, owners, key)) {
          throw new ReservedGlobal(`bridges ${owners[key]} and ${name} both define the global '${key}'`);
        }
        if (key in G) {
          throw new ReservedGlobal(`bridge ${name} defines the global '${key}', which is a built-in`);
        }
        owners[key] = name;
        define(key, api[key]);
      }
    }
    harden();
    boundBuiltins();
    maskToString();
    hideInternalFrames();
    function defineGlobals(globalsJson, globalsSidecar) {
      defineGlobalValues(decode(globalsJson, globalsSidecar));
    }
    // The same for globals the host moved in binary form (already an object here).
    function defineGlobalValues(values) {
      for (const key of keys(values)) {
        if (key in G) {
          const who = call(hasOwn, owners, key) ? `the granted bridge ${owners[key]}` : "a built-in";
          throw new ReservedGlobal(`global '${key}' is reserved: ${who} defines it`);
        }
        define(key, values[key]);
      }
    }
    return freeze({ prefix: (s, n) => call(stringSlice, s, 0, n), makeHost, defineGlobals, defineGlobalValues,
                    trust, thrownClass });
  };
})()
