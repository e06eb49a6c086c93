// The guest half of Sandjar's transport (wire format: docs/transport.md).
// Evaluated once per context before any user code; its completion value is the codec object.
// It captures every built-in it uses up front, so later guest code cannot intercept it.
(() => {
  "use strict";
  const MARK = "$sj";
  const LONG_STRING = 8192;
  const MAX_DEPTH = 32;
  const { isArray } = Array;
  const { getPrototypeOf, keys, prototype: ObjectProto } = Object;
  const { stringify, parse } = JSON;
  const ArrayProto = Array.prototype;
  const TypedArray = getPrototypeOf(Uint8Array);
  const typedTag = Object.getOwnPropertyDescriptor(TypedArray.prototype, Symbol.toStringTag).get;
  const abSlice = ArrayBuffer.prototype.slice;
  const dateValue = Date.prototype.getTime;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const is = Object.is;
  const ctors = {
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };

  class TransportError extends Error {}
  TransportError.prototype.name = "TransportError";

  function stringBytes(s) {
    const u = new Uint16Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return u.buffer;
  }

  function encode(value, rootName) {
    const sidecar = [];
    const stack = [];
    const side = (buffer) => sidecar.push(buffer) - 1;
    function walk(v, path, depth) {
      switch (typeof v) {
        case "string":
          return v.length > LONG_STRING ? { [MARK]: "str", i: side(stringBytes(v)) } : v;
        case "boolean":
          return v;
        case "number":
          if (v !== v) return { [MARK]: "num", v: "NaN" };
          if (v === Infinity) return { [MARK]: "num", v: "Infinity" };
          if (v === -Infinity) return { [MARK]: "num", v: "-Infinity" };
          if (is(v, -0)) return { [MARK]: "num", v: "-0" };
          return v;
        case "undefined":
          return { [MARK]: "undef" };
        case "bigint":
          return { [MARK]: "bigint", v: String(v) };
        case "function":
          throw new TransportError(`${path} is a function, which cannot leave the sandbox`);
        case "symbol":
          throw new TransportError(`${path} is a symbol, which cannot leave the sandbox`);
      }
      if (v === null) return null;
      if (depth > MAX_DEPTH) {
        throw new TransportError(`${path} is nested deeper than ${MAX_DEPTH} levels`);
      }
      if (stack.includes(v)) {
        throw new TransportError(`${path} refers back to one of its own ancestors (a cycle)`);
      }
      if (ArrayBuffer.isView(v)) {
        if (v instanceof DataView) {
          return { [MARK]: "bytes", type: "DataView",
                   i: side(call(abSlice, v.buffer, v.byteOffset, v.byteOffset + v.byteLength)) };
        }
        return { [MARK]: "bytes", type: call(typedTag, v),
                 i: side(call(abSlice, v.buffer, v.byteOffset, v.byteOffset + v.byteLength)) };
      }
      if (v instanceof ArrayBuffer) return { [MARK]: "bytes", type: "ArrayBuffer", i: side(call(abSlice, v, 0)) };
      if (v instanceof Date) {
        const t = call(dateValue, v);
        return { [MARK]: "date", v: t === t ? t : null };
      }
      if (v instanceof RegExp) return { [MARK]: "regexp", source: v.source, flags: v.flags };
      if (v instanceof Error) {
        return { [MARK]: "error", name: String(v.name), message: String(v.message),
                 stack: typeof v.stack === "string" ? v.stack : "" };
      }
      stack.push(v);
      try {
        if (v instanceof Map) {
          const out = [];
          let n = 0;
          for (const [k, val] of call(mapEntries, v)) {
            out.push([walk(k, `${path}.<key ${n}>`, depth + 1), walk(val, `${path}.get(${n})`, depth + 1)]);
            n++;
          }
          return { [MARK]: "map", v: out };
        }
        if (v instanceof Set) {
          const out = [];
          let n = 0;
          for (const item of call(setValues, v)) out.push(walk(item, `${path}.<item ${n++}>`, depth + 1));
          return { [MARK]: "set", v: out };
        }
        if (isArray(v)) {
          const out = new Array(v.length);
          for (let i = 0; i < v.length; i++) {
            out[i] = i in v ? walk(v[i], `${path}[${i}]`, depth + 1) : { [MARK]: "undef" };
          }
          return out;
        }
        const proto = getPrototypeOf(v);
        if (proto !== ObjectProto && proto !== null) {
          const name = proto && proto.constructor && proto.constructor.name;
          if (name === "Promise") {
            throw new TransportError(`${path} is a Promise; await it before returning it`);
          }
        }
        const out = {};
        for (const k of keys(v)) {
          out[k] = walk(v[k], /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${stringify(k)}]`, depth + 1);
        }
        return MARK in out ? { [MARK]: "obj", v: out } : out;
      } finally {
        stack.pop();
      }
    }
    const tree = walk(value, rootName || "value", 0);
    return [stringify(tree), sidecar];
  }

  function decode(json, sidecar) {
    function text(buffer) {
      const u = new Uint16Array(buffer);
      let s = "";
      for (let i = 0; i < u.length; i += 4096) s += String.fromCharCode.apply(null, u.subarray(i, i + 4096));
      return s;
    }
    function revive(v) {
      if (v === null || typeof v !== "object") return v;
      if (isArray(v)) return v.map(revive);
      const kind = v[MARK];
      if (kind === undefined) {
        const out = {};
        for (const k of keys(v)) out[k] = revive(v[k]);
        return out;
      }
      switch (kind) {
        case "obj": { const out = {}; for (const k of keys(v.v)) out[k] = revive(v.v[k]); return out; }
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
        case "str": return text(sidecar[v.i]);
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

  // A plain arrays of undefined would fail the JSON step; objects with undefined values as well:
  // both are handled by the markers above.
  return Object.freeze({ encode, decode });
})()
