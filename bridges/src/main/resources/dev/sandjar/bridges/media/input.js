// The argument normaliser every media bridge shares (Media.guestSource): a ref, a handle, a uri
// string or bytes become what the host's Media.resolve takes. Long strings (a data: URI) cross in
// pieces of 8,192 units, since the transport is far slower on long strings; refs coming back from
// the host are joined again by mediaInput.ref.
(host) => {
  const { defineProperty, getPrototypeOf, getOwnPropertyDescriptor } = Object;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const getter = (proto, key) => getOwnPropertyDescriptor(proto, key).get;
  const TypedArray = getPrototypeOf(Uint8Array);
  const typedArrayTag = getter(TypedArray.prototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArray.prototype, "buffer");
  const typedArrayOffset = getter(TypedArray.prototype, "byteOffset");
  const typedArrayLength = getter(TypedArray.prototype, "byteLength");
  const arrayBufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const stringSlice = String.prototype.slice;
  const arrayJoin = Array.prototype.join;
  const PIECE = 8192;

  const fail = (Ctor, code, message) => {
    const e = new Ctor(message);
    defineProperty(e, "code", { value: code, writable: true, configurable: true });
    return e;
  };
  const describe = (v) => {
    if (v === null) return "null";
    if (Array.isArray(v)) return "an array";
    return typeof v === "object" ? "an object without a string uri" : `a ${typeof v}`;
  };
  const pieces = (s) => {
    if (s.length <= PIECE) return s;
    const out = [];
    for (let i = 0; i < s.length; i += PIECE) out[out.length] = call(stringSlice, s, i, i + PIECE);
    return out;
  };

  const mediaInput = (v, where) => {
    if (typeof v === "string") return { uri: pieces(v) };
    if (v !== null && typeof v === "object") {
      if (call(typedArrayTag, v) !== undefined) {
        return new Uint8Array(call(typedArrayBuffer, v), call(typedArrayOffset, v), call(typedArrayLength, v));
      }
      try {
        return new Uint8Array(v, 0, call(arrayBufferLength, v));
      } catch {
        // not an ArrayBuffer
      }
      if (typeof v.uri === "string") {
        const ref = { uri: pieces(v.uri) };
        if (typeof v.type === "string") ref.type = v.type;
        if (typeof v.mimeType === "string") ref.mimeType = v.mimeType;
        if (typeof v.filename === "string") ref.filename = v.filename;
        return ref;
      }
    }
    throw fail(TypeError, "INVALID_ARGUMENT",
      `${where}: expected a media ref {type, uri}, a sandbox://media/ handle, a uri string or bytes (Uint8Array, ArrayBuffer), got ${describe(v)}`);
  };
  // A ref or info object from the host, its uri joined if it came in pieces.
  mediaInput.ref = (r) => {
    if (r !== null && typeof r === "object" && Array.isArray(r.uri)) r.uri = call(arrayJoin, r.uri, "");
    return r;
  };
  // Options: undefined or null is {}; anything else must be an object.
  mediaInput.options = (o, where) => {
    if (o === undefined || o === null) return {};
    if (typeof o !== "object" || Array.isArray(o)) {
      throw fail(TypeError, "INVALID_ARGUMENT", `${where}: options must be an object, got ${describe(o)}`);
    }
    return o;
  };
  return mediaInput;
}
