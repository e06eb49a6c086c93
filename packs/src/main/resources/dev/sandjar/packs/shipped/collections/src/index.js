// @sandjar/collections: array helpers that return plain arrays and objects.
import { compare, keyOf, array } from "./compare.js";

// Own, enumerable, writable: even a key like "__proto__" becomes an ordinary property.
function put(obj, key, value) {
  Object.defineProperty(obj, String(key), {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** `array` in pieces of `size` (the last may be shorter). */
export function chunk(items, size) {
  array(items, "items");
  if (!Number.isInteger(size) || size < 1) throw new RangeError("size must be an integer >= 1");
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `{ key: [items with that key] }`, keys in first-seen order. */
export function groupBy(items, key) {
  const read = keyOf(key);
  const out = {};
  for (const item of array(items, "items")) {
    const k = String(read(item));
    if (Object.hasOwn(out, k)) out[k].push(item);
    else put(out, k, [item]);
  }
  return out;
}

/** `{ key: item }`; a later item with the same key wins. */
export function keyBy(items, key) {
  const read = keyOf(key);
  const out = {};
  for (const item of array(items, "items")) put(out, read(item), item);
  return out;
}

/** `{ key: number of items with that key }`. */
export function countBy(items, key) {
  const read = keyOf(key);
  const out = {};
  for (const item of array(items, "items")) {
    const k = String(read(item));
    put(out, k, (Object.hasOwn(out, k) ? out[k] : 0) + 1);
  }
  return out;
}

/** `[items passing the test, the rest]`. */
export function partition(items, test) {
  if (typeof test !== "function") throw new TypeError("test must be a function");
  const yes = [];
  const no = [];
  for (const item of array(items, "items")) (test(item) ? yes : no).push(item);
  return [yes, no];
}

/** The first item for each distinct key (SameValueZero), in order. */
export function uniqBy(items, key = (x) => x) {
  const read = keyOf(key);
  const seen = new Set();
  return array(items, "items").filter((item) => {
    const k = read(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * A sorted copy, stable, by one or more keys: property names or functions; a name starting with
 * "-" sorts descending. Numbers and dates compare by value, then strings; null, undefined and NaN
 * sort last either way.
 */
export function sortBy(items, ...keys) {
  array(items, "items");
  if (keys.length === 0) keys = [(x) => x];
  const readers = keys.map((k) =>
    typeof k === "string" && k.startsWith("-")
      ? { read: keyOf(k.slice(1)), sign: -1 }
      : { read: keyOf(k), sign: 1 },
  );
  return items
    .map((item, index) => ({ item, index, values: readers.map((r) => r.read(item)) }))
    .sort((a, b) => {
      for (let i = 0; i < readers.length; i++) {
        const x = a.values[i];
        const y = b.values[i];
        const c = compare(x, y);
        if (c !== 0) {
          const missing = (v) => v === null || v === undefined || Number.isNaN(v);
          return missing(x) || missing(y) ? c : c * readers[i].sign;
        }
      }
      return a.index - b.index;
    })
    .map((e) => e.item);
}

/** Integers from `start` up to, not including, `end` (or 0..start with one argument). */
export function range(start, end, step = 1) {
  if (end === undefined) [start, end] = [0, start];
  for (const [n, v] of [["start", start], ["end", end], ["step", step]]) {
    if (!Number.isFinite(v)) throw new TypeError(`${n} must be a finite number`);
  }
  if (step === 0) throw new RangeError("step must not be 0");
  const length = Math.max(0, Math.ceil((end - start) / step));
  if (length > 10_000_000) throw new RangeError(`range of ${length} items is too long`);
  return Array.from({ length }, (_, i) => start + i * step);
}

/** `[[a0, b0], [a1, b1], ...]`, as long as the shortest input. */
export function zip(...arrays) {
  arrays.forEach((a, i) => array(a, `argument ${i + 1}`));
  const length = arrays.length ? Math.min(...arrays.map((a) => a.length)) : 0;
  return Array.from({ length }, (_, i) => arrays.map((a) => a[i]));
}
