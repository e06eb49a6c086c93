// Ordering shared by sortBy and the statistics (internal to @sandjar/collections).

function rank(v) {
  if (v === undefined) return 4;
  if (v === null) return 3;
  if (typeof v === "number" && Number.isNaN(v)) return 2;
  return typeof v === "number" || typeof v === "bigint" || v instanceof Date ? 0 : 1;
}

/**
 * A total order: numbers, bigints and dates by value, then strings (and everything else, as
 * strings) by code unit, then NaN, null and undefined last.
 */
export function compare(a, b) {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) {
    const x = a instanceof Date ? a.getTime() : a;
    const y = b instanceof Date ? b.getTime() : b;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ra === 1) {
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return 0;
}

/** A key reader from a property name or a function. */
export function keyOf(key) {
  if (typeof key === "function") return key;
  if (typeof key === "string" || typeof key === "number") return (item) => item?.[key];
  throw new TypeError("a key must be a property name or a function");
}

export function array(value, name) {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array`);
  return value;
}
