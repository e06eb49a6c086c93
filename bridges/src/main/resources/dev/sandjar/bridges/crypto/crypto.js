// The guest half of crypto: argument shapes and the copy of host random bytes into the caller's
// array. The host holds the limits (65,536 random bytes per call, the algorithm list) and does all
// the cryptography.
(host) => {
  const { getPrototypeOf, getOwnPropertyDescriptor, defineProperty } = Object;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const getter = (proto, key) => getOwnPropertyDescriptor(proto, key).get;
  const TypedArray = getPrototypeOf(Uint8Array);
  const typedArrayTag = getter(TypedArray.prototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArray.prototype, "buffer");
  const typedArrayOffset = getter(TypedArray.prototype, "byteOffset");
  const typedArrayLength = getter(TypedArray.prototype, "byteLength");
  const arrayBufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const dataViewBuffer = getter(DataView.prototype, "buffer");
  const dataViewOffset = getter(DataView.prototype, "byteOffset");
  const dataViewLength = getter(DataView.prototype, "byteLength");
  const toWellFormed = String.prototype.toWellFormed;
  const stringSlice = String.prototype.slice;
  const typedArraySet = TypedArray.prototype.set;
  const INTEGER_ARRAYS = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];
  const MAX_RANDOM_BYTES = 65536;

  const fail = (Ctor, name, code, message) => {
    const e = new Ctor(message);
    defineProperty(e, "name", { value: name, writable: true, configurable: true });
    defineProperty(e, "code", { value: code, writable: true, configurable: true });
    return e;
  };

  const describe = (v) => {
    if (v === null) return "null";
    if (typeof v === "object") {
      const tag = call(typedArrayTag, v);
      if (tag !== undefined) return `a ${tag}`;
      if (v instanceof DataView) return "a DataView";
      if (v instanceof ArrayBuffer) return "an ArrayBuffer";
      return Array.isArray(v) ? "an array" : "an object";
    }
    return typeof v === "undefined" ? "undefined" : `a ${typeof v}`;
  };

  // A string crosses well-formed (the host encodes it as UTF-8) and, past 8,192 units, as an
  // array of pieces that long: the transport carries short strings as plain JSON and longer ones
  // through a far slower per-character path. Bytes cross as a Uint8Array view.
  const PIECE = 8192;
  const stringArgument = (v) => {
    const s = call(toWellFormed, v);
    if (s.length <= PIECE) return s;
    const pieces = [];
    for (let i = 0; i < s.length; i += PIECE) pieces[pieces.length] = call(stringSlice, s, i, i + PIECE);
    return pieces;
  };
  const dataArgument = (v, where, what) => {
    if (typeof v === "string") return stringArgument(v);
    if (v !== null && typeof v === "object") {
      if (call(typedArrayTag, v) !== undefined) {
        return new Uint8Array(call(typedArrayBuffer, v), call(typedArrayOffset, v), call(typedArrayLength, v));
      }
      try {
        return new Uint8Array(v, 0, call(arrayBufferLength, v));
      } catch {
        // not an ArrayBuffer
      }
      try {
        return new Uint8Array(call(dataViewBuffer, v), call(dataViewOffset, v), call(dataViewLength, v));
      } catch {
        // not a DataView
      }
    }
    throw fail(TypeError, "TypeError", "INVALID_ARGUMENT",
      `${where}: ${what} must be a string (hashed as UTF-8), an ArrayBuffer, a typed array or a DataView, got ${describe(v)}`);
  };

  // "SHA-256" or { name: "SHA-256" }, as WebCrypto takes it; the host checks the name.
  const algorithmArgument = (v, where) => {
    const name = v !== null && typeof v === "object" ? v.name : v;
    if (typeof name !== "string") {
      throw fail(TypeError, "TypeError", "INVALID_ARGUMENT",
        `${where}: algorithm must be a name such as 'SHA-256' or { name: 'SHA-256' }, got ${describe(name)}`);
    }
    return name;
  };

  function getRandomValues(array) {
    const tag = call(typedArrayTag, array);
    if (!INTEGER_ARRAYS.includes(tag)) {
      throw fail(Error, "TypeMismatchError", "TYPE_MISMATCH",
        `crypto.getRandomValues: expected an integer typed array (${INTEGER_ARRAYS.join(", ")}), got ${describe(array)}`);
    }
    const length = call(typedArrayLength, array);
    if (length > MAX_RANDOM_BYTES) {
      throw fail(Error, "QuotaExceededError", "QUOTA_EXCEEDED",
        `crypto.getRandomValues: ${length} bytes requested; at most ${MAX_RANDOM_BYTES} bytes per call`);
    }
    if (length > 0) {
      const bytes = host.call("randomBytes", length);
      call(typedArraySet, new Uint8Array(call(typedArrayBuffer, array), call(typedArrayOffset, array), length), bytes);
    }
    return array;
  }

  const crypto = {
    randomUUID: () => host.call("randomUUID"),
    getRandomValues,
    // Promises of an ArrayBuffer, as crypto.subtle.digest and crypto.subtle.sign return.
    digest: async (algorithm, data) =>
      host.call("digest", algorithmArgument(algorithm, "crypto.digest"), dataArgument(data, "crypto.digest", "data")),
    hmac: async (algorithm, key, data) =>
      host.call("hmac", algorithmArgument(algorithm, "crypto.hmac"), dataArgument(key, "crypto.hmac", "key"),
        dataArgument(data, "crypto.hmac", "data")),
  };
  return { crypto };
}
