// Guest helpers: pure guest code, no host operation behind any of them (see docs/bridges.md).
// The interpreter is slow, so the byte loops lean on QuickJS's native string functions where
// that is exact: encodeURIComponent/unescape for UTF-8 encoding, escape/decodeURIComponent for
// strict UTF-8 decoding (a JavaScript decoder takes over only when the input is not valid UTF-8),
// and lookup tables built on first use, not per run.
(host) => {
  const { fromCharCode } = String;
  const { apply } = Reflect;
  const { getPrototypeOf, getOwnPropertyDescriptor, defineProperty } = Object;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const TypedArray = getPrototypeOf(Uint8Array);
  const getter = (proto, key) => getOwnPropertyDescriptor(proto, key).get;
  const typedArrayTag = getter(TypedArray.prototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArray.prototype, "buffer");
  const typedArrayOffset = getter(TypedArray.prototype, "byteOffset");
  const typedArrayLength = getter(TypedArray.prototype, "byteLength");
  const arrayBufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const dataViewBuffer = getter(DataView.prototype, "buffer");
  const dataViewOffset = getter(DataView.prototype, "byteOffset");
  const dataViewLength = getter(DataView.prototype, "byteLength");
  const toWellFormed = String.prototype.toWellFormed;
  const nativeEscape = escape;
  const nativeUnescape = unescape;
  const nativeEncodeURIComponent = encodeURIComponent;
  const nativeDecodeURIComponent = decodeURIComponent;
  const ArrayFrom = Array.from;
  const PromiseAll = Promise.all.bind(Promise);
  const NON_ASCII = /[^\x00-\x7f]/;
  const HIGH_BYTE = /[\x80-\xff]/;
  const ASCII_WHITESPACE = /[\t\n\f\r ]/;
  const ASCII_WHITESPACE_ALL = /[\t\n\f\r ]+/g;

  const fail = (Ctor, code, message) => {
    const e = new Ctor(message);
    defineProperty(e, "code", { value: code, writable: true, configurable: true });
    return e;
  };

  const describe = (v) => {
    if (v === null) return "null";
    if (typeof v === "object") {
      const tag = call(typedArrayTag, v);
      if (tag !== undefined) return `a ${tag}`;
      return Array.isArray(v) ? "an array" : "an object";
    }
    return typeof v === "undefined" ? "undefined" : `a ${typeof v}`;
  };

  // A Uint8Array view of any binary value, sharing its memory; undefined for anything else.
  const asBytes = (v) => {
    if (v === null || typeof v !== "object") return undefined;
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
      return undefined;
    }
  };

  const binaryArgument = (v, where, allowString) => {
    if (allowString && typeof v === "string") return utf8Encode(v);
    const bytes = asBytes(v);
    if (bytes === undefined) {
      throw fail(TypeError, "INVALID_ARGUMENT",
        `${where}: expected a Uint8Array, ArrayBuffer, typed array or DataView${allowString ? " or a string (encoded as UTF-8)" : ""}, got ${describe(v)}`);
    }
    return bytes;
  };

  // ---------------------------------------------------------------------------------------
  // UTF-8

  // A binary string (one char per byte) into a new Uint8Array.
  const binaryToBytes = (bin) => {
    const n = bin.length;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = bin.charCodeAt(i);
    return out;
  };

  // Lone surrogates become U+FFFD (EF BF BD), as the WHATWG encoder does.
  const utf8Encode = (s) => {
    if (!NON_ASCII.test(s)) return binaryToBytes(s);
    return binaryToBytes(nativeUnescape(nativeEncodeURIComponent(call(toWellFormed, s))));
  };

  const CHUNK = 8192;
  const bytesToBinary = (bytes) => {
    const n = bytes.length;
    if (n <= CHUNK) return apply(fromCharCode, null, bytes);
    let bin = "";
    for (let i = 0; i < n; i += CHUNK) bin += apply(fromCharCode, null, bytes.subarray(i, i + CHUNK));
    return bin;
  };

  const codeUnitsToString = (units, n) => {
    let s = "";
    for (let i = 0; i < n; i += CHUNK) s += apply(fromCharCode, null, units.subarray(i, Math.min(n, i + CHUNK)));
    return s;
  };

  // The WHATWG UTF-8 decoder: each maximal invalid subpart becomes one U+FFFD, or, when fatal,
  // the first one throws. Only runs on input the native strict decoder refused.
  const utf8DecodeSlow = (bytes, fatal) => {
    const n = bytes.length;
    const units = new Uint16Array(n + 1);
    let u = 0;
    let i = 0;
    while (i < n) {
      const start = i;
      const b = bytes[i++];
      if (b < 0x80) {
        units[u++] = b;
        continue;
      }
      let need = 0;
      let cp = 0;
      let lower = 0x80;
      let upper = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) {
        need = 1; cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        need = 2; cp = b & 0x0f;
        if (b === 0xe0) lower = 0xa0;
        else if (b === 0xed) upper = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3; cp = b & 0x07;
        if (b === 0xf0) lower = 0x90;
        else if (b === 0xf4) upper = 0x8f;
      }
      let ok = need > 0;
      while (ok && need > 0) {
        if (i >= n) { ok = false; break; }
        const c = bytes[i];
        if (c < lower || c > upper) { ok = false; break; }
        lower = 0x80;
        upper = 0xbf;
        cp = (cp << 6) | (c & 0x3f);
        i++;
        need--;
      }
      if (!ok) {
        if (fatal) {
          throw fail(TypeError, "INVALID_UTF8",
            `TextDecoder.decode: the data is not valid UTF-8 (bad sequence at byte ${start})`);
        }
        units[u++] = 0xfffd;
        continue;
      }
      if (cp >= 0x10000) {
        cp -= 0x10000;
        units[u++] = 0xd800 | (cp >> 10);
        units[u++] = 0xdc00 | (cp & 0x3ff);
      } else {
        units[u++] = cp;
      }
    }
    return codeUnitsToString(units, u);
  };

  const utf8Decode = (bytes, fatal) => {
    if (bytes.length === 0) return "";
    const bin = bytesToBinary(bytes);
    if (!HIGH_BYTE.test(bin)) return bin;
    try {
      // decodeURIComponent refuses overlong forms, surrogates, values past U+10FFFF and
      // truncated sequences, so whatever it returns is exactly the UTF-8 decoding.
      return nativeDecodeURIComponent(nativeEscape(bin));
    } catch {
      return utf8DecodeSlow(bytes, fatal);
    }
  };

  // How many bytes at the end of `bytes` start a sequence that the next chunk may complete.
  const incompleteTail = (bytes) => {
    const n = bytes.length;
    for (let k = 1; k <= 3 && k <= n; k++) {
      const b = bytes[n - k];
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
      return need > k ? k : 0;
    }
    return 0;
  };

  const UTF8_LABELS = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"];

  class TextEncoder {
    get encoding() {
      return "utf-8";
    }

    encode(input = "") {
      return utf8Encode(`${input}`);
    }

    // Writes whole characters only; returns how many UTF-16 units were read and bytes written.
    encodeInto(source, destination) {
      const s = `${source}`;
      if (call(typedArrayTag, destination) !== "Uint8Array") {
        throw fail(TypeError, "INVALID_ARGUMENT",
          `TextEncoder.encodeInto: the destination must be a Uint8Array, got ${describe(destination)}`);
      }
      const room = destination.length;
      let read = 0;
      let written = 0;
      const n = s.length;
      while (read < n) {
        let c = s.charCodeAt(read);
        let units = 1;
        if (c >= 0xd800 && c <= 0xdbff && read + 1 < n) {
          const d = s.charCodeAt(read + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            units = 2;
          }
        }
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (written + size > room) break;
        if (size === 1) {
          destination[written] = c;
        } else if (size === 2) {
          destination[written] = 0xc0 | (c >> 6);
          destination[written + 1] = 0x80 | (c & 0x3f);
        } else if (size === 3) {
          destination[written] = 0xe0 | (c >> 12);
          destination[written + 1] = 0x80 | ((c >> 6) & 0x3f);
          destination[written + 2] = 0x80 | (c & 0x3f);
        } else {
          destination[written] = 0xf0 | (c >> 18);
          destination[written + 1] = 0x80 | ((c >> 12) & 0x3f);
          destination[written + 2] = 0x80 | ((c >> 6) & 0x3f);
          destination[written + 3] = 0x80 | (c & 0x3f);
        }
        written += size;
        read += units;
      }
      return { read, written };
    }

    get [Symbol.toStringTag]() {
      return "TextEncoder";
    }
  }

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    #pending = null;
    #started = false;

    constructor(label = "utf-8", options = undefined) {
      const name = `${label}`.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
      if (!UTF8_LABELS.includes(name)) {
        throw fail(RangeError, "UNSUPPORTED_ENCODING",
          `TextDecoder: the encoding '${label}' is not supported; only UTF-8 is (labels: ${UTF8_LABELS.join(", ")})`);
      }
      this.#fatal = Boolean(options?.fatal);
      this.#ignoreBOM = Boolean(options?.ignoreBOM);
    }

    get encoding() {
      return "utf-8";
    }

    get fatal() {
      return this.#fatal;
    }

    get ignoreBOM() {
      return this.#ignoreBOM;
    }

    decode(input = undefined, options = undefined) {
      const stream = Boolean(options?.stream);
      let bytes = input === undefined ? new Uint8Array(0) : binaryArgument(input, "TextDecoder.decode", false);
      if (this.#pending !== null) {
        const joined = new Uint8Array(this.#pending.length + bytes.length);
        joined.set(this.#pending);
        joined.set(bytes, this.#pending.length);
        bytes = joined;
        this.#pending = null;
      }
      // A partial BOM at the start of a stream is an incomplete sequence too, so it waits here
      // for the rest of its bytes before the BOM check below sees it.
      if (stream) {
        const tail = incompleteTail(bytes);
        if (tail > 0) {
          this.#pending = bytes.slice(bytes.length - tail);
          bytes = bytes.subarray(0, bytes.length - tail);
        }
      }
      if (!this.#started && bytes.length > 0) {
        this.#started = true;
        if (!this.#ignoreBOM && bytes.length >= 3
            && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
          bytes = bytes.subarray(3);
        }
      }
      const text = utf8Decode(bytes, this.#fatal);
      if (!stream) {
        this.#pending = null;
        this.#started = false;
      }
      return text;
    }

    get [Symbol.toStringTag]() {
      return "TextDecoder";
    }
  }

  // ---------------------------------------------------------------------------------------
  // Base64 and hex

  const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const tables = {};

  // 12 bits to two characters, so each 3-byte group is two lookups.
  const pairTable = (alphabet) => {
    const t = new Array(4096);
    for (let i = 0; i < 4096; i++) t[i] = alphabet[i >> 6] + alphabet[i & 63];
    return t;
  };

  // Character code (ASCII) to its 6-bit value, 255 when not in the alphabet.
  const valueTable = (alphabet) => {
    const t = new Uint8Array(128).fill(255);
    for (let i = 0; i < 64; i++) t[alphabet.charCodeAt(i)] = i;
    return t;
  };

  const table = (key, make, alphabet) => tables[key] ?? (tables[key] = make(alphabet));

  const alphabetOption = (options, where) => {
    const alphabet = options?.alphabet ?? "base64";
    if (alphabet !== "base64" && alphabet !== "base64url") {
      throw fail(TypeError, "INVALID_ARGUMENT",
        `${where}: options.alphabet must be 'base64' or 'base64url', got ${typeof alphabet === "string" ? `'${alphabet}'` : describe(alphabet)}`);
    }
    return alphabet === "base64url";
  };

  const join = (parts, last) => {
    parts.push(last);
    return parts.join("");
  };

  function toBase64(data, options = undefined) {
    const bytes = binaryArgument(data, "toBase64", true);
    const url = alphabetOption(options, "toBase64");
    const pad = !options?.omitPadding;
    const alphabet = url ? URL_SAFE : STANDARD;
    const pairs = url ? table("urlPairs", pairTable, URL_SAFE) : table("pairs", pairTable, STANDARD);
    const n = bytes.length;
    const full = n - (n % 3);
    const parts = [];
    let out = "";
    for (let i = 0; i < full; i += 3) {
      const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      out += pairs[v >> 12] + pairs[v & 4095];
      if (out.length >= 16384) {
        parts.push(out);
        out = "";
      }
    }
    if (n - full === 1) {
      const v = bytes[full];
      out += alphabet[v >> 2] + alphabet[(v & 3) << 4] + (pad ? "==" : "");
    } else if (n - full === 2) {
      const v = (bytes[full] << 8) | bytes[full + 1];
      out += alphabet[v >> 10] + alphabet[(v >> 4) & 63] + alphabet[(v & 15) << 2] + (pad ? "=" : "");
    }
    return join(parts, out);
  }

  const quoteChar = (s, i) => {
    const c = s.codePointAt(i);
    return c < 0x20 || c === 0x7f || c > 0x7e ? `U+${c.toString(16).toUpperCase().padStart(4, "0")}` : `'${s[i]}'`;
  };

  // Why `s` (whitespace already removed, `original` as given) is not base64, naming the index in
  // the original string.
  const base64Problem = (original, values) => {
    let seenPad = false;
    for (let i = 0; i < original.length; i++) {
      const c = original.charCodeAt(i);
      if (c === 9 || c === 10 || c === 12 || c === 13 || c === 32) continue;
      if (c === 61) {
        seenPad = true;
        continue;
      }
      if (seenPad) return `'=' padding before index ${i}: padding may only end the data`;
      if (c >= 128 || values[c] === 255) {
        return `invalid character ${quoteChar(original, i)} at index ${i}`;
      }
    }
    return undefined;
  };

  function fromBase64(string, options = undefined) {
    if (typeof string !== "string") {
      throw fail(TypeError, "INVALID_ARGUMENT", `fromBase64: expected a string, got ${describe(string)}`);
    }
    const url = alphabetOption(options, "fromBase64");
    const values = url ? table("urlValues", valueTable, URL_SAFE) : table("values", valueTable, STANDARD);
    const which = url ? "base64url (A-Z a-z 0-9 - _)" : "base64 (A-Z a-z 0-9 + /)";
    const bad = (why) => fail(SyntaxError, "INVALID_BASE64", `fromBase64: ${why ?? "the data is malformed"}; the alphabet is ${which}`);
    const s = ASCII_WHITESPACE.test(string) ? string.replace(ASCII_WHITESPACE_ALL, "") : string;
    let len = s.length;
    let padding = 0;
    while (len > 0 && s.charCodeAt(len - 1) === 61) {
      len--;
      padding++;
    }
    const rest = len % 4;
    if (rest === 1) {
      throw bad(base64Problem(string, values) ?? `${len} characters of data end in a group of 1, which is incomplete`);
    }
    if (padding > 0 && rest + padding !== 4) {
      throw bad(base64Problem(string, values) ?? `${padding} '=' after a final group of ${rest} character(s) is wrong padding`);
    }
    const full = len - rest;
    const out = new Uint8Array((full >> 2) * 3 + (rest === 0 ? 0 : rest - 1));
    let o = 0;
    for (let i = 0; i < full; i += 4) {
      const c0 = s.charCodeAt(i);
      const c1 = s.charCodeAt(i + 1);
      const c2 = s.charCodeAt(i + 2);
      const c3 = s.charCodeAt(i + 3);
      if ((c0 | c1 | c2 | c3) >= 128) throw bad(base64Problem(string, values));
      const a = values[c0];
      const b = values[c1];
      const c = values[c2];
      const d = values[c3];
      // Values are 0..63, or 255 for a character outside the alphabet: the OR is 255 iff one is.
      if ((a | b | c | d) === 255) {
        throw bad(base64Problem(string, values));
      }
      const v = (a << 18) | (b << 12) | (c << 6) | d;
      out[o++] = v >> 16;
      out[o++] = (v >> 8) & 255;
      out[o++] = v & 255;
    }
    if (rest > 0) {
      const tail = [];
      for (let i = full; i < len; i++) {
        const c = s.charCodeAt(i);
        const v = c < 128 ? values[c] : 255;
        if (v === 255) throw bad(base64Problem(string, values));
        tail.push(v);
      }
      if (rest === 2) {
        if (tail[1] & 15) throw bad("the last character has bits set past the end of the data");
        out[o++] = (tail[0] << 2) | (tail[1] >> 4);
      } else {
        if (tail[2] & 3) throw bad("the last character has bits set past the end of the data");
        out[o++] = (tail[0] << 2) | (tail[1] >> 4);
        out[o++] = ((tail[1] & 15) << 4) | (tail[2] >> 2);
      }
    }
    return out;
  }

  const hexTable = () => {
    const t = new Array(256);
    for (let i = 0; i < 256; i++) t[i] = (i < 16 ? "0" : "") + i.toString(16);
    return t;
  };

  const hexValues = () => {
    const t = new Uint8Array(128).fill(255);
    for (let i = 0; i < 10; i++) t[48 + i] = i;
    for (let i = 0; i < 6; i++) {
      t[65 + i] = 10 + i;
      t[97 + i] = 10 + i;
    }
    return t;
  };

  function toHex(data) {
    const bytes = binaryArgument(data, "toHex", true);
    const hex = table("hex", hexTable);
    const n = bytes.length;
    const parts = [];
    let out = "";
    for (let i = 0; i < n; i++) {
      out += hex[bytes[i]];
      if (out.length >= 16384) {
        parts.push(out);
        out = "";
      }
    }
    return join(parts, out);
  }

  function fromHex(string) {
    if (typeof string !== "string") {
      throw fail(TypeError, "INVALID_ARGUMENT", `fromHex: expected a string, got ${describe(string)}`);
    }
    const n = string.length;
    if (n % 2 !== 0) {
      throw fail(SyntaxError, "INVALID_HEX",
        `fromHex: the string has ${n} characters; hex needs an even number (two per byte)`);
    }
    const values = table("hexValues", hexValues);
    const out = new Uint8Array(n >> 1);
    for (let i = 0; i < n; i += 2) {
      const c0 = string.charCodeAt(i);
      const c1 = string.charCodeAt(i + 1);
      const hi = c0 < 128 ? values[c0] : 255;
      const lo = c1 < 128 ? values[c1] : 255;
      if (hi === 255 || lo === 255) {
        const at = hi === 255 ? i : i + 1;
        throw fail(SyntaxError, "INVALID_HEX",
          `fromHex: invalid character ${quoteChar(string, at)} at index ${at}; hex digits are 0-9 a-f A-F`);
      }
      out[i >> 1] = (hi << 4) | lo;
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // parallelMap

  const MAX_CONCURRENCY = 32;

  async function parallelMap(items, fn, concurrency = 5) {
    if (items === null || (typeof items !== "object" && typeof items !== "string")) {
      throw fail(TypeError, "INVALID_ARGUMENT", `parallelMap: items must be an array or iterable, got ${describe(items)}`);
    }
    if (typeof fn !== "function") {
      throw fail(TypeError, "INVALID_ARGUMENT", `parallelMap: fn must be a function, got ${describe(fn)}`);
    }
    if (typeof concurrency !== "number" || !Number.isInteger(concurrency) || concurrency < 1) {
      throw fail(RangeError, "INVALID_ARGUMENT",
        `parallelMap: concurrency must be an integer from 1 (it is capped at ${MAX_CONCURRENCY}), got ${typeof concurrency === "number" ? concurrency : describe(concurrency)}`);
    }
    const list = ArrayFrom(items);
    const n = list.length;
    const results = new Array(n);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < n) {
        const i = next++;
        try {
          results[i] = await fn(list[i], i);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    const workers = [];
    const width = Math.min(concurrency, MAX_CONCURRENCY, n);
    for (let k = 0; k < width; k++) workers.push(worker());
    await PromiseAll(workers);
    return results;
  }

  const globals = { toBase64, fromBase64, toHex, fromHex, parallelMap };
  if (typeof globalThis.TextEncoder === "undefined") globals.TextEncoder = TextEncoder;
  if (typeof globalThis.TextDecoder === "undefined") globals.TextDecoder = TextDecoder;
  return globals;
}
