// The guest half of Sandjar's transport (wire format: docs/transport.md).
// Evaluated once per context before any user code; its completion value is the codec object.
// It captures every built-in it uses up front, so later guest code cannot intercept it.
(() => {
  "use strict";
  const MARK = "$sj";
  const LONG_STRING = 8192;
  const MAX_DEPTH = 32;
  const { isArray } = Array;
  const { getPrototypeOf, keys, defineProperty, prototype: ObjectProto } = Object;
  const hasOwn = ObjectProto.hasOwnProperty;
  const { stringify, parse } = JSON;
  const ArrayProto = Array.prototype;
  const TypedArray = getPrototypeOf(Uint8Array);
  const typedTag = Object.getOwnPropertyDescriptor(TypedArray.prototype, Symbol.toStringTag).get;
  const abSlice = ArrayBuffer.prototype.slice;
  const dateValue = Date.prototype.getTime;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const arrayMap = ArrayProto.map;
  const setHas = Set.prototype.has;
  const { getOwnPropertyNames } = Object;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const ctors = {
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };

  class TransportError extends Error {}
  TransportError.prototype.name = "TransportError";

  // Thrown inside encode only, never reaches guest code: the output limit was passed.
  const TOO_LARGE = Object.freeze({});

  // encode(value, rootName, limit): [json, sidecar]; with a limit, [n, null] as soon as the
  // encoding is known to be more than `limit` (n, a lower bound of its size, is past it). The size
  // is the host's measure: JSON characters plus sidecar string lengths and byte lengths. The walk
  // counts a lower bound of it as it goes, so a huge value fails after about `limit` units of work,
  // not after walking all of it.
  function encode(value, rootName, limit) {
    const max = typeof limit === "number" ? limit : Infinity;
    let size = 0;
    const count = (n) => { if ((size += n) > max) throw TOO_LARGE; };
    const sidecar = [];
    const stack = []; // the objects on the current path, for cycles
    const path = []; // the keys on the current path: built into a string only for an error
    const side = (buffer) => sidecar.push(buffer) - 1;
    function where() {
      let s = rootName || "value";
      for (let i = 0; i < path.length; i++) {
        const k = path[i];
        if (typeof k === "number") s += `[${k}]`;
        else if (typeof k === "object") s += k.label;
        else s += /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${stringify(k)}]`;
      }
      return s;
    }
    const fail = (what) => { throw new TransportError(`${where()} ${what}`); };
    function put(out, k, v) {
      // "__proto__" as an own key must stay a key, not become the prototype.
      if (k === "__proto__") defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
    }
    function walk(v, depth) {
      switch (typeof v) {
        case "string":
          // A long string rides the sidecar as itself: the host copies it through memory.
          count(v.length + 2);
          return v.length > LONG_STRING ? { [MARK]: "str", i: side(v) } : v;
        case "boolean":
          count(4);
          return v;
        case "number":
          count(1);
          if (v !== v) return { [MARK]: "num", v: "NaN" };
          if (v === Infinity) return { [MARK]: "num", v: "Infinity" };
          if (v === -Infinity) return { [MARK]: "num", v: "-Infinity" };
          if (v === 0 && 1 / v < 0) return { [MARK]: "num", v: "-0" };
          return v;
        case "undefined":
          count(15); // {"$sj":"undef"}
          return { [MARK]: "undef" };
        case "bigint":
          count(23); // {"$sj":"bigint","v":""}
          return { [MARK]: "bigint", v: String(v) };
        case "function":
          return fail("is a function, which cannot leave the sandbox");
        case "symbol":
          return fail("is a symbol, which cannot leave the sandbox");
      }
      if (v === null) { count(4); return null; }
      if (depth > MAX_DEPTH) fail(`is nested deeper than ${MAX_DEPTH} levels`);
      const proto = getPrototypeOf(v);
      const array = isArray(v);
      if (!array && proto !== ObjectProto && proto !== null) {
        const special = other(v, proto, depth);
        if (special !== undefined) return special;
      }
      if (stack.includes(v)) fail("refers back to one of its own ancestors (a cycle)");
      stack.push(v);
      let out;
      if (array) {
        const n = v.length;
        count(n > 0 ? n + 1 : 2); // brackets and commas, before the elements: a huge sparse array fails at once
        out = new Array(n);
        for (let i = 0; i < n; i++) {
          path.push(i);
          out[i] = i in v ? walk(v[i], depth + 1) : { [MARK]: "undef" };
          path.pop();
        }
      } else {
        out = {};
        const ks = keys(v);
        count(ks.length > 0 ? ks.length + 1 : 2); // braces and commas
        for (let i = 0; i < ks.length; i++) {
          const k = ks[i];
          count(k.length + 3); // "k":
          path.push(k);
          put(out, k, walk(v[k], depth + 1));
          path.pop();
        }
        if (call(hasOwn, out, MARK)) out = { [MARK]: "obj", v: out };
      }
      stack.pop();
      return out;
    }
    // Anything but a plain object or array; undefined means "walk it as a plain object".
    function other(v, proto, depth) {
      if (ArrayBuffer.isView(v)) {
        count(v.byteLength);
        const bytes = call(abSlice, v.buffer, v.byteOffset, v.byteOffset + v.byteLength);
        return { [MARK]: "bytes", type: v instanceof DataView ? "DataView" : call(typedTag, v), i: side(bytes) };
      }
      if (v instanceof ArrayBuffer) {
        count(v.byteLength);
        return { [MARK]: "bytes", type: "ArrayBuffer", i: side(call(abSlice, v, 0)) };
      }
      if (v instanceof Date) {
        const t = call(dateValue, v);
        return { [MARK]: "date", v: t === t ? t : null };
      }
      if (v instanceof RegExp) return { [MARK]: "regexp", source: v.source, flags: v.flags };
      if (v instanceof Error) {
        return { [MARK]: "error", name: String(v.name), message: String(v.message),
                 stack: typeof v.stack === "string" ? v.stack : "" };
      }
      if (v instanceof Map || v instanceof Set) {
        if (stack.includes(v)) fail("refers back to one of its own ancestors (a cycle)");
        stack.push(v);
        const out = [];
        let n = 0;
        if (v instanceof Map) {
          for (const [k, val] of call(mapEntries, v)) {
            path.push({ label: `.<key ${n}>` });
            const key = walk(k, depth + 1);
            path.pop();
            path.push({ label: `.get(${n})` });
            out.push([key, walk(val, depth + 1)]);
            path.pop();
            n++;
          }
        } else {
          for (const item of call(setValues, v)) {
            path.push({ label: `.<item ${n++}>` });
            out.push(walk(item, depth + 1));
            path.pop();
          }
        }
        stack.pop();
        return { [MARK]: v instanceof Map ? "map" : "set", v: out };
      }
      const name = proto && proto.constructor && proto.constructor.name;
      if (name === "Promise") fail("is a Promise; await it before returning it");
      return undefined;
    }
    let tree;
    try {
      tree = walk(value, 0);
    } catch (e) {
      if (e === TOO_LARGE) return [size, null];
      throw e;
    }
    return [stringify(tree), sidecar];
  }

  function decode(json, sidecar) {
    function reviveObject(v) {
      const out = {};
      for (const k of keys(v)) {
        const x = revive(v[k]);
        if (k === "__proto__") defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
        else out[k] = x;
      }
      return out;
    }
    function revive(v) {
      if (v === null || typeof v !== "object") return v;
      if (isArray(v)) return v.map(revive);
      const kind = call(hasOwn, v, MARK) ? v[MARK] : undefined;
      if (kind === undefined) return reviveObject(v);
      switch (kind) {
        case "obj": return reviveObject(v.v);
        case "undef": return undefined;
        case "num": return v.v === "-0" ? -0 : Number(v.v);
        case "bigint": return BigInt(v.v);
        case "date": return new Date(v.v === null ? NaN : v.v);
        case "regexp": return new RegExp(v.source, v.flags);
        case "map": return new Map(v.v.map(([k, val]) => [revive(k), revive(val)]));
        case "set": return new Set(v.v.map(revive));
        case "error": {
          const e = new Error(v.message);
          e.name = v.name;
          if (v.stack) e.stack = v.stack;
          return e;
        }
        case "str": {
          const text = sidecar[v.i];
          if (typeof text !== "string") throw new TransportError("a long string's sidecar entry is not a string");
          return text;
        }
        case "bytes": {
          const buffer = sidecar[v.i];
          if (v.type === "ArrayBuffer") return buffer;
          if (v.type === "DataView") return new DataView(buffer);
          const C = ctors[v.type];
          if (!C) throw new TransportError(`unknown binary type ${v.type}`);
          return new C(buffer);
        }
        default: throw new TransportError(`unknown transport marker ${kind}`);
      }
    }
    // Plain JSON needs no reviving: skip the walk (markers always carry the key "$sj").
    if (json.indexOf('"$sj"') < 0) return parse(json);
    return revive(parse(json));
  }

  // The binary path (docs/transport.md): the engine's native writer ignores prototypes, so after
  // the host has read a value as plain data, this confirms that every plain object in it has
  // Object.prototype or null as its prototype (class instances and objects made with
  // Object.create(X) take the walk above, as before). The plan (little-endian int32s, host-made)
  // lists the containers that hold plain objects, depth first:
  //   0 n (i child)*n  a plain object; i indexes Object.keys(v)
  //   1 n (i child)*n  an array; i is the element index
  //   2 n              an array of n plain objects that hold no containers
  function protoCheck(value, planBuffer) {
    const plan = new Int32Array(planBuffer);
    let pc = 0;
    const plainProto = (p) => p === ObjectProto || p === null;
    function node(v) {
      const kind = plan[pc++];
      const n = plan[pc++];
      if (v === null || typeof v !== "object") return false;
      if (kind === 2) {
        if (!isArray(v) || v.length !== n) return false;
        // Native steps only: a loop over thousands of rows costs more than the whole write.
        const protos = new Set(call(arrayMap, v, getPrototypeOf));
        return protos.size === (call(setHas, protos, ObjectProto) ? 1 : 0) + (call(setHas, protos, null) ? 1 : 0);
      }
      if (kind === 1 ? !isArray(v) : isArray(v) || !plainProto(getPrototypeOf(v))) return false;
      const ks = kind === 0 && n > 0 ? keys(v) : null;
      for (let i = 0; i < n; i++) {
        const at = plan[pc++];
        if (!node(kind === 0 ? v[ks[at]] : v[at])) return false;
      }
      return true;
    }
    return plan.length === 0 || (node(value) && pc === plan.length);
  }

  // Names the engine may have built in as atoms (it writes those by number): [names, object with
  // those keys in that order]. The host learns the numbers from the engine's encoding of it.
  function atomProbe() {
    const names = [];
    const seen = new Set();
    const add = (k) => {
      if (typeof k === "string" && !seen.has(k) && !/^(0|[1-9][0-9]*)$/.test(k)) {
        seen.add(k);
        names.push(k);
      }
    };
    const G = globalThis;
    for (const k of getOwnPropertyNames(G)) {
      add(k);
      const v = G[k];
      if (v !== null && (typeof v === "object" || typeof v === "function")) {
        getOwnPropertyNames(v).forEach(add);
        const p = v.prototype;
        if (p !== null && typeof p === "object") getOwnPropertyNames(p).forEach(add);
      }
    }
    ("null false true if else return var this delete void typeof new in instanceof do while for " +
     "break continue switch case default throw try catch finally function debugger with class " +
     "const enum export extends import super implements interface let package private protected " +
     "public static yield await length fileName lineNumber columnNumber message cause errors " +
     "stack name toString valueOf eval prototype constructor configurable writable enumerable " +
     "value get set of __proto__ undefined number boolean string object symbol integer unknown " +
     "arguments callee caller lastIndex target index input raw source flags global unicode " +
     "done next values add has size then resolve reject promise proxy revoke async exec groups " +
     "indices status reason as from meta default type data key id code error result items").split(" ").forEach(add);
    add("");
    const o = {};
    for (const k of names) defineProperty(o, k, { value: 0, enumerable: true, writable: true, configurable: true });
    return [names, o];
  }

  // A plain arrays of undefined would fail the JSON step; objects with undefined values as well:
  // both are handled by the markers above.
  return Object.freeze({ encode, decode, protoCheck, atomProbe });
})()
