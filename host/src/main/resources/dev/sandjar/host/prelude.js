// The guest half of a run's setup (see docs/sandbox.md). Evaluated once per prepared template,
// after the codec and before any user or module code. Its completion value is install(), which the
// host calls with the private dispatcher; the dispatcher is never a global, so once install()
// returns the guest can reach the host only through the functions the bridges chose to expose.
(() => {
  "use strict";
  const G = globalThis;
  const { defineProperty, getPrototypeOf, keys, freeze } = Object;
  const hasOwn = Object.prototype.hasOwnProperty;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const stringSlice = String.prototype.slice;

  const define = (name, value) =>
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  // No code from strings: eval is removed, and every function constructor reachable from a
  // function's .constructor (plain, async, generator, async generator) throws. The blocked
  // constructors keep the original prototypes, so `f instanceof Function` still holds.
  function harden() {
    const samples = [function () {}, async function () {}, function* () {}, async function* () {}];
    for (const sample of samples) {
      const proto = getPrototypeOf(sample);
      const original = proto.constructor;
      const name = original.name;
      const blocked = function () {
        throw new EvalError(`${name} is disabled in the sandbox: code cannot be created from strings`);
      };
      defineProperty(blocked, "name", { value: name });
      defineProperty(blocked, "prototype", { value: proto, writable: false, configurable: false });
      defineProperty(proto, "constructor", { value: blocked, writable: false, configurable: false });
      if (G.Function === original) {
        defineProperty(G, "Function", { value: blocked, writable: false, configurable: false });
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

  class ReservedGlobal extends Error {}
  ReservedGlobal.prototype.name = "SandjarReservedGlobal";

  // Runs once per prepared template (host/Template.java): the result is snapshotted, and every
  // run starts from it. defineGlobals() is the per-run part.
  return function install(dispatch, codec, factories, names) {
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
    return freeze({ prefix: (s, n) => call(stringSlice, s, 0, n), makeHost, defineGlobals, defineGlobalValues });
  };
})()
