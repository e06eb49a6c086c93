// The guest half of console: formats arguments the way Node's util.inspect does (close enough to
// read the same), then hands one line per call to the host, which caps its length and files it in
// the run's log. Formatting runs here, as guest code, so a hostile toString, getter or Proxy only
// spends the run's own CPU budget; every place user code can run is inside a try.
(host) => {
  const { getPrototypeOf, getOwnPropertyDescriptor, is } = Object;
  const { ownKeys } = Reflect;
  const { isArray } = Array;
  const { floor, min, max, round, sqrt } = Math;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const getter = (proto, key) => getOwnPropertyDescriptor(proto, key).get;
  const TypedArray = getPrototypeOf(Uint8Array);
  const typedArrayTag = getter(TypedArray.prototype, Symbol.toStringTag);
  const typedArrayLength = getter(TypedArray.prototype, "length");
  const arrayBufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const dataViewLength = getter(DataView.prototype, "byteLength");
  const dataViewOffset = getter(DataView.prototype, "byteOffset");
  const mapSize = getter(Map.prototype, "size");
  const setSize = getter(Set.prototype, "size");
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const mapIteratorNext = getPrototypeOf(new Map().entries()).next;
  const setIteratorNext = getPrototypeOf(new Set().values()).next;
  const regExpSource = getter(RegExp.prototype, "source");
  const regExpFlags = getter(RegExp.prototype, "flags");
  const dateGetTime = Date.prototype.getTime;
  const dateToISOString = Date.prototype.toISOString;
  const fnToString = Function.prototype.toString;
  const symbolToString = Symbol.prototype.toString;
  const symbolValueOf = Symbol.prototype.valueOf;
  const numberValueOf = Number.prototype.valueOf;
  const stringValueOf = String.prototype.valueOf;
  const booleanValueOf = Boolean.prototype.valueOf;
  const bigintValueOf = BigInt.prototype.valueOf;
  const hasOwn = Object.prototype.hasOwnProperty;
  const join = Array.prototype.join;
  const stringSlice = String.prototype.slice;
  const stringIncludes = String.prototype.includes;
  const stringIndexOf = String.prototype.indexOf;
  const stringRepeat = String.prototype.repeat;
  const padStart = String.prototype.padStart;
  const padEnd = String.prototype.padEnd;
  const stringReplace = String.prototype.replace;
  const regExpTest = RegExp.prototype.test;
  const jsonStringify = JSON.stringify;
  const NativeString = String;
  const NativeNumber = Number;
  const nativeParseInt = parseInt;
  const nativeParseFloat = parseFloat;
  const AsyncFunctionPrototype = getPrototypeOf(async function () {});
  const GeneratorFunctionPrototype = getPrototypeOf(function* () {});
  const AsyncGeneratorFunctionPrototype = getPrototypeOf(async function* () {});
  const BUILTIN_PROTOTYPES = [Object.prototype, Array.prototype, Error.prototype, Date.prototype,
    RegExp.prototype, Function.prototype, Map.prototype, Set.prototype];

  // Node's defaults: nested objects past depth 2 print as [Object], 100 items per array/map/set,
  // 10,000 characters per nested string, lines broken at 80 columns.
  const DEPTH = 2;
  const MAX_ITEMS = 100;
  const MAX_STRING = 10000;
  const BREAK_LENGTH = 80;
  const MAX_BYTES_SHOWN = 50;
  // Formatting stops adding entries once one call has produced this many characters; the host
  // cuts each line at 64 KiB anyway, and this bounds the work on a huge structure.
  const OUTPUT_BUDGET = 128 * 1024;

  const IDENTIFIER = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const ESCAPES = /[\x00-\x1f\x7f\\]/g;
  const ESCAPED = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", "\\": "\\\\" };

  const safeText = (e) => {
    try {
      if (e instanceof Error) return `${e.name}: ${e.message}`;
      return typeof e === "symbol" ? call(symbolToString, e) : `${e}`;
    } catch {
      return "<unprintable error>";
    }
  };

  const quote = (s) => {
    let more = "";
    if (s.length > MAX_STRING) {
      more = `... ${s.length - MAX_STRING} more character${s.length - MAX_STRING === 1 ? "" : "s"}`;
      s = call(stringSlice, s, 0, MAX_STRING);
    }
    let q = "'";
    if (call(stringIncludes, s, "'")) {
      if (!call(stringIncludes, s, '"')) q = '"';
      else if (!call(stringIncludes, s, "`") && !call(stringIncludes, s, "${")) q = "`";
    }
    let body = call(stringReplace, s, ESCAPES, (c) =>
      ESCAPED[c] ?? `\\x${call(padStart, c.charCodeAt(0).toString(16).toUpperCase(), 2, "0")}`);
    if (q === "'") body = call(stringReplace, body, /'/g, "\\'");
    return q + body + q + more;
  };

  const formatNumber = (n) => (is(n, -0) ? "-0" : `${n}`);

  const formatSymbol = (s) => call(symbolToString, s);

  const formatKey = (key) => {
    if (typeof key === "symbol") return `[${formatSymbol(key)}]`;
    return call(regExpTest, IDENTIFIER, key) ? key : quote(key);
  };

  const functionBase = (f) => {
    let source = "";
    try {
      source = call(fnToString, f);
    } catch {
      // a revoked proxy, for example
    }
    let name = "";
    try {
      const d = getOwnPropertyDescriptor(f, "name");
      if (d !== undefined && typeof d.value === "string") name = d.value;
    } catch {
      // a proxy trap threw
    }
    if (call(stringSlice, source, 0, 5) === "class" && /^class\b/.test(source)) {
      return name ? `[class ${name}]` : "[class (anonymous)]";
    }
    let kind = "Function";
    try {
      const proto = getPrototypeOf(f);
      if (proto === AsyncFunctionPrototype) kind = "AsyncFunction";
      else if (proto === GeneratorFunctionPrototype) kind = "GeneratorFunction";
      else if (proto === AsyncGeneratorFunctionPrototype) kind = "AsyncGeneratorFunction";
    } catch {
      // a proxy trap threw
    }
    return name ? `[${kind}: ${name}]` : `[${kind} (anonymous)]`;
  };

  // The name of the nearest constructor on the prototype chain; null for a null prototype.
  const constructorName = (obj) => {
    let proto = getPrototypeOf(obj);
    for (let i = 0; proto !== null && i < 32; i++) {
      const d = getOwnPropertyDescriptor(proto, "constructor");
      if (d !== undefined && typeof d.value === "function") {
        const n = getOwnPropertyDescriptor(d.value, "name");
        if (n !== undefined && typeof n.value === "string" && n.value !== "") return n.value;
      }
      proto = getPrototypeOf(proto);
    }
    return proto === null && getPrototypeOf(obj) === null ? null : "Object";
  };

  const tryCall = (fn, v) => {
    try {
      return { value: call(fn, v) };
    } catch {
      return undefined;
    }
  };

  class Ctx {
    constructor(depth) {
      this.depth = depth;
      this.seen = [];
      this.indentation = 0;
      this.budget = OUTPUT_BUDGET;
      // The level of the object most recently expanded, as Node tracks it for line breaking.
      this.currentDepth = 0;
    }
  }

  const formatValue = (ctx, v, level, nested) => {
    let out;
    switch (typeof v) {
      case "string":
        out = nested ? quote(v) : v;
        break;
      case "number":
        out = formatNumber(v);
        break;
      case "bigint":
        out = `${v}n`;
        break;
      case "boolean":
        out = v ? "true" : "false";
        break;
      case "undefined":
        out = "undefined";
        break;
      case "symbol":
        out = formatSymbol(v);
        break;
      case "function":
        out = functionBase(v);
        break;
      default:
        if (v === null) {
          out = "null";
        } else if (ctx.seen.includes(v)) {
          out = "[Circular]";
        } else {
          try {
            out = formatObject(ctx, v, level);
          } catch (e) {
            out = `[object that cannot be inspected: ${safeText(e)}]`;
          }
        }
    }
    ctx.budget -= out.length;
    return out;
  };

  // Entries of a list-like (array, typed array): at most MAX_ITEMS indices, runs of holes as one.
  const arrayEntries = (ctx, arr, length, level, typed) => {
    const output = [];
    let numeric = true;
    const shown = min(length, MAX_ITEMS);
    let holes = 0;
    const flushHoles = () => {
      output[output.length] = `<${holes} empty item${holes === 1 ? "" : "s"}>`;
      numeric = false;
      holes = 0;
    };
    let i = 0;
    for (; i < shown && ctx.budget > 0; i++) {
      let value;
      if (typed) {
        value = arr[i];
      } else {
        const d = getOwnPropertyDescriptor(arr, i);
        if (d === undefined) {
          holes++;
          continue;
        }
        if (holes > 0) flushHoles();
        if (d.get !== undefined || d.set !== undefined) {
          output[output.length] = accessorText(d);
          numeric = false;
          continue;
        }
        value = d.value;
      }
      if (typeof value !== "number" && typeof value !== "bigint") numeric = false;
      output[output.length] = formatValue(ctx, value, level + 1, true);
    }
    if (holes > 0) flushHoles();
    const remaining = length - i;
    return { output, numeric, more: remaining > 0 ? `... ${remaining} more item${remaining === 1 ? "" : "s"}` : undefined };
  };

  const accessorText = (d) =>
    d.get !== undefined ? (d.set !== undefined ? "[Getter/Setter]" : "[Getter]") : "[Setter]";

  // Own enumerable properties as "key: value", skipping array indices when `skipIndices`.
  const propertyEntries = (ctx, obj, level, skipIndices, output) => {
    const keys = ownKeys(obj);
    let shown = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (skipIndices && typeof key === "string" && /^(0|[1-9][0-9]*)$/.test(key)) continue;
      const d = getOwnPropertyDescriptor(obj, key);
      if (d === undefined || !d.enumerable) continue;
      if (shown >= MAX_ITEMS || ctx.budget <= 0) {
        output[output.length] = "...";
        break;
      }
      shown++;
      const value = d.get !== undefined || d.set !== undefined
        ? accessorText(d)
        : formatValue(ctx, d.value, level + 1, true);
      output[output.length] = `${formatKey(key)}: ${value}`;
    }
    return output;
  };

  const mapOrSetEntries = (ctx, obj, level, isMap) => {
    const output = [];
    const iterator = call(isMap ? mapEntries : setValues, obj);
    const next = isMap ? mapIteratorNext : setIteratorNext;
    const size = call(isMap ? mapSize : setSize, obj);
    let n = 0;
    for (;;) {
      const step = call(next, iterator);
      if (step.done) break;
      if (n >= MAX_ITEMS || ctx.budget <= 0) {
        output[output.length] = `... ${size - n} more item${size - n === 1 ? "" : "s"}`;
        break;
      }
      n++;
      if (isMap) {
        const k = formatValue(ctx, step.value[0], level + 1, true);
        output[output.length] = `${k} => ${formatValue(ctx, step.value[1], level + 1, true)}`;
      } else {
        output[output.length] = formatValue(ctx, step.value, level + 1, true);
      }
    }
    return output;
  };

  const bytesText = (buffer) => {
    const bytes = new Uint8Array(buffer, 0, min(call(arrayBufferLength, buffer), MAX_BYTES_SHOWN));
    const length = call(arrayBufferLength, buffer);
    let s = "";
    for (let i = 0; i < bytes.length; i++) {
      s += (i === 0 ? "" : " ") + call(padStart, bytes[i].toString(16), 2, "0");
    }
    if (length > MAX_BYTES_SHOWN) s += ` ... ${length - MAX_BYTES_SHOWN} more byte${length - MAX_BYTES_SHOWN === 1 ? "" : "s"}`;
    return `<${s}>`;
  };

  // Node's column layout for arrays of more than six short items.
  const groupArrayElements = (ctx, output, numeric) => {
    let totalLength = 0;
    let maxLength = 0;
    const separatorSpace = 2;
    const dataLen = [];
    for (let i = 0; i < output.length; i++) {
      const len = output[i].length;
      if (call(stringIncludes, output[i], "\n")) return output;
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    if (actualMax * 3 + ctx.indentation < BREAK_LENGTH
        && (totalLength / actualMax > 5 || maxLength <= 6)) {
      const averageBias = sqrt(actualMax - totalLength / output.length);
      const biasedMax = max(actualMax - 3 - averageBias, 1);
      const columns = min(
        round(sqrt(2.5 * biasedMax * output.length) / biasedMax),
        floor((BREAK_LENGTH - ctx.indentation) / actualMax),
        12,
        15);
      if (columns <= 1) return output;
      const maxLineLength = [];
      for (let i = 0; i < columns; i++) {
        let lineLength = 0;
        for (let j = i; j < output.length; j += columns) {
          if (dataLen[j] > lineLength) lineLength = dataLen[j];
        }
        maxLineLength[i] = lineLength + separatorSpace;
      }
      const pad = numeric ? padStart : padEnd;
      const grouped = [];
      for (let i = 0; i < output.length; i += columns) {
        const last = min(i + columns, output.length) - 1;
        let line = "";
        for (let j = i; j < last; j++) line += call(pad, `${output[j]}, `, maxLineLength[j - i], " ");
        line += numeric ? call(padStart, output[last], maxLineLength[last - i] - separatorSpace, " ") : output[last];
        grouped[grouped.length] = line;
      }
      return grouped;
    }
    return output;
  };

  // One object's entries as one line or, when they do not fit, one entry per line. `list` is
  // {numeric, more} for arrays: more than six entries may be laid out in columns, and `more` (the
  // "... N more items" entry) is added after.
  const reduceToSingleString = (ctx, level, output, base, open, close, list) => {
    if (output.length === 0) return base ? `${base} ${open}${close}` : `${open}${close}`;
    let entries = output.length;
    if (list !== undefined) {
      if (entries > 6) output = groupArrayElements(ctx, output, list.numeric);
      if (list.more !== undefined) {
        output[output.length] = list.more;
        entries++;
      }
    }
    const prefix = base ? `${base} ` : "";
    // Like Node (compact: 3): up to three inner levels may share a line, if it fits.
    if (entries === output.length && ctx.currentDepth - level < 3 && !call(stringIncludes, base, "\n")) {
      let total = output.length + ctx.indentation + open.length + base.length + 10;
      for (let i = 0; i < output.length && total <= BREAK_LENGTH; i++) total += output[i].length;
      if (total + output.length <= BREAK_LENGTH) {
        const joined = call(join, output, ", ");
        if (!call(stringIncludes, joined, "\n")) return `${prefix}${open} ${joined} ${close}`;
      }
    }
    const indentation = `\n${call(stringRepeat, " ", ctx.indentation)}`;
    return `${prefix}${open}${indentation}  ${call(join, output, `,${indentation}  `)}${indentation}${close}`;
  };

  const errorText = (err, level, name) => {
    let header;
    try {
      const n = err.name;
      const m = err.message;
      const ns = typeof n === "string" ? n : name;
      header = m === undefined || m === "" ? ns : `${ns}: ${m}`;
    } catch (e) {
      header = `${name} (its name or message threw ${safeText(e)})`;
    }
    let stack = "";
    try {
      const s = err.stack;
      if (typeof s === "string") stack = s;
    } catch {
      // a throwing getter: print the header alone
    }
    if (level > 0 || stack === "") return level > 0 ? `[${header}]` : header;
    if (call(stringSlice, stack, 0, header.length) === header) return call(stringReplace, stack, /\n+$/, "");
    return `${header}\n${call(stringReplace, stack, /\n+$/, "")}`;
  };

  // Formats the children of `v` through `body`, with `v` on the cycle stack, one indent deeper;
  // the caller lays the result out at its own indentation.
  const expand = (ctx, v, level, body) => {
    ctx.seen.push(v);
    ctx.indentation += 2;
    ctx.currentDepth = level;
    try {
      return body();
    } finally {
      ctx.indentation -= 2;
      ctx.seen.pop();
    }
  };

  const hasEnumerableKeys = (v) => {
    const keys = ownKeys(v);
    for (let i = 0; i < keys.length; i++) {
      const d = getOwnPropertyDescriptor(v, keys[i]);
      if (d !== undefined && d.enumerable) return true;
    }
    return false;
  };

  const formatObject = (ctx, v, level) => {
    const tag = call(typedArrayTag, v);
    if (tag !== undefined) {
      const length = call(typedArrayLength, v);
      if (length === 0) return `${tag}(0) []`;
      if (level > ctx.depth) return `[${tag}]`;
      const { output, numeric, more } = expand(ctx, v, level, () => arrayEntries(ctx, v, length, level, true));
      return reduceToSingleString(ctx, level, output, `${tag}(${length})`, "[", "]", { numeric, more });
    }
    if (isArray(v)) {
      const name = constructorName(v);
      const length = v.length;
      const base = name === "Array" ? "" : `${name ?? "[Array: null prototype]"}(${length})`;
      if (length === 0 && !hasEnumerableKeys(v)) return base ? `${base} []` : "[]";
      if (level > ctx.depth) return "[Array]";
      const { output, numeric, more } = expand(ctx, v, level, () => {
        const list = arrayEntries(ctx, v, length, level, false);
        // Extra named properties, as Node shows them; skipped on long arrays, where listing
        // every index key to find them would cost more than the line is worth.
        if (length <= 1000) propertyEntries(ctx, v, level, true, list.output);
        return list;
      });
      return reduceToSingleString(ctx, level, output, base, "[", "]", { numeric, more });
    }

    const name = constructorName(v);
    let special;

    if (v instanceof Date) {
      const time = tryCall(dateGetTime, v);
      if (time !== undefined) {
        special = time.value !== time.value ? "Invalid Date" : call(dateToISOString, v);
        if (name !== "Date") special = `${name} ${special}`;
      }
    } else if (v instanceof Error) {
      special = errorText(v, level, name ?? "Error");
    } else if (v instanceof RegExp) {
      const source = tryCall(regExpSource, v);
      if (source !== undefined) special = `/${source.value}/${call(regExpFlags, v)}`;
    } else if (v instanceof Map || v instanceof Set) {
      const isMap = v instanceof Map;
      const size = tryCall(isMap ? mapSize : setSize, v);
      if (size !== undefined) {
        const base = `${name ?? (isMap ? "Map" : "Set")}(${size.value})`;
        if (size.value === 0 && !hasEnumerableKeys(v)) return `${base} {}`;
        if (level > ctx.depth) return `[${name ?? (isMap ? "Map" : "Set")}]`;
        const entries = expand(ctx, v, level, () =>
          propertyEntries(ctx, v, level, false, mapOrSetEntries(ctx, v, level, isMap)));
        return reduceToSingleString(ctx, level, entries, base, "{", "}");
      }
    } else if (v instanceof ArrayBuffer) {
      const length = tryCall(arrayBufferLength, v);
      if (length !== undefined) {
        const entries = [`[Uint8Contents]: ${bytesText(v)}`, `byteLength: ${length.value}`];
        return reduceToSingleString(ctx, level, entries, name ?? "ArrayBuffer", "{", "}");
      }
    } else if (v instanceof DataView) {
      const length = tryCall(dataViewLength, v);
      if (length !== undefined) {
        const entries = [`byteLength: ${length.value}`, `byteOffset: ${call(dataViewOffset, v)}`];
        return reduceToSingleString(ctx, level, entries, name ?? "DataView", "{", "}");
      }
    } else if (v instanceof Promise) {
      special = `${name ?? "Promise"} { <state unknown> }`;
    } else if (v instanceof WeakMap || v instanceof WeakSet) {
      special = `${name ?? "WeakCollection"} { <items unknown> }`;
    } else {
      const boxed =
        v instanceof Number ? tryCall(numberValueOf, v)
        : v instanceof String ? tryCall(stringValueOf, v)
        : v instanceof Boolean ? tryCall(booleanValueOf, v)
        : v instanceof BigInt ? tryCall(bigintValueOf, v)
        : v instanceof Symbol ? tryCall(symbolValueOf, v)
        : undefined;
      if (boxed !== undefined) {
        const t = typeof boxed.value;
        const kind = t === "bigint" ? "BigInt" : call(stringSlice, t, 0, 1).toUpperCase() + call(stringSlice, t, 1);
        special = `[${kind}: ${formatValue(ctx, boxed.value, level + 1, true)}]`;
      }
    }

    if (special !== undefined) {
      // Own enumerable properties still show, as in Node: `Error: x ... { code: 'E' }`.
      if (level > ctx.depth) return special;
      const extra = expand(ctx, v, level, () => {
        const out = propertyEntries(ctx, v, level, v instanceof String, []);
        if (v instanceof Error) {
          const cause = getOwnPropertyDescriptor(v, "cause");
          if (cause !== undefined && !cause.enumerable && cause.get === undefined) {
            out[out.length] = `[cause]: ${formatValue(ctx, cause.value, level + 1, true)}`;
          }
        }
        return out;
      });
      return extra.length === 0 ? special : reduceToSingleString(ctx, level, extra, special, "{", "}");
    }

    const base = name === null ? "[Object: null prototype]" : name === "Object" ? "" : name;
    if (!hasEnumerableKeys(v)) return base ? `${base} {}` : "{}";
    if (level > ctx.depth) return `[${name ?? "Object: null prototype"}]`;
    const entries = expand(ctx, v, level, () => propertyEntries(ctx, v, level, false, []));
    return reduceToSingleString(ctx, level, entries, base, "{", "}");
  };

  const inspect = (v, depth = DEPTH) => formatValue(new Ctx(depth), v, 0, false);

  // True when `obj` has a toString of its own making (not one of the built-in prototypes').
  const hasUserToString = (obj) => {
    let o = obj;
    for (let i = 0; o !== null && i < 32; i++) {
      if (BUILTIN_PROTOTYPES.includes(o)) return false;
      if (call(hasOwn, o, "toString")) return true;
      o = getPrototypeOf(o);
    }
    return false;
  };

  const guarded = (f, v) => {
    try {
      return f(v);
    } catch (e) {
      return `[${typeof v === "object" ? "conversion" : "value"} threw ${safeText(e)}]`;
    }
  };

  const substitution = (c, arg) => {
    switch (c) {
      case "s":
        if (typeof arg === "number") return formatNumber(arg);
        if (typeof arg === "bigint") return `${arg}n`;
        if (typeof arg === "symbol") return formatSymbol(arg);
        if (arg !== null && typeof arg === "object") {
          return guarded((o) => (hasUserToString(o) ? NativeString(o) : inspect(o, 0)), arg);
        }
        return typeof arg === "function" ? functionBase(arg) : NativeString(arg);
      case "d":
        if (typeof arg === "bigint") return `${arg}n`;
        if (typeof arg === "symbol") return "NaN";
        return guarded((x) => formatNumber(NativeNumber(x)), arg);
      case "i":
        if (typeof arg === "bigint") return `${arg}n`;
        if (typeof arg === "symbol") return "NaN";
        return guarded((x) => formatNumber(nativeParseInt(x)), arg);
      case "f":
        if (typeof arg === "symbol") return "NaN";
        return guarded((x) => formatNumber(nativeParseFloat(x)), arg);
      case "j":
        return guarded((x) => {
          try {
            return `${jsonStringify(x)}`;
          } catch (e) {
            if (e instanceof TypeError && /circular|cycle/i.test(e.message)) return "[Circular]";
            throw e;
          }
        }, arg);
      case "o":
        return inspect(arg, 4);
      case "O":
        return inspect(arg);
      case "c":
        return "";
      default:
        return undefined;
    }
  };

  // One line from console arguments: printf-style substitution in a first string argument, then
  // the rest separated by spaces, strings bare and everything else inspected.
  const formatLine = (args) => {
    let line = "";
    let next = 0;
    const first = args[0];
    if (typeof first === "string" && args.length > 1) {
      next = 1;
      let last = 0;
      let i = call(stringIndexOf, first, "%");
      while (i !== -1 && i < first.length - 1) {
        const c = first[i + 1];
        if (c === "%") {
          line += call(stringSlice, first, last, i) + "%";
          last = i + 2;
          i = call(stringIndexOf, first, "%", i + 2);
          continue;
        }
        if (next < args.length) {
          const text = substitution(c, args[next]);
          if (text !== undefined) {
            next++;
            line += call(stringSlice, first, last, i) + text;
            last = i + 2;
            i = call(stringIndexOf, first, "%", i + 2);
            continue;
          }
        }
        i = call(stringIndexOf, first, "%", i + 1);
      }
      line += last === 0 ? first : call(stringSlice, first, last);
    }
    for (let a = next; a < args.length; a++) {
      const v = args[a];
      line += (a === 0 ? "" : " ") + (typeof v === "string" ? v : inspect(v));
    }
    return line;
  };

  // The host keeps 64 KiB of a line and counts the rest. Only what it keeps (plus one character,
  // so it can tell a surrogate pair at the cut) crosses, in pieces of at most 8,192 units: the
  // transport carries strings that short as plain JSON and longer ones through a far slower
  // per-character path.
  const LINE_CAP = 65536;
  const PIECE = 8192;
  const method = (level) => (...args) => {
    const line = formatLine(args);
    const kept = line.length > LINE_CAP ? call(stringSlice, line, 0, LINE_CAP + 1) : line;
    const pieces = [];
    for (let i = 0; i < kept.length; i += PIECE) pieces[pieces.length] = call(stringSlice, kept, i, i + PIECE);
    host.call("log", level, pieces, line.length);
  };

  return {
    console: {
      log: method("log"),
      info: method("info"),
      warn: method("warn"),
      error: method("error"),
      debug: method("debug"),
    },
  };
}
