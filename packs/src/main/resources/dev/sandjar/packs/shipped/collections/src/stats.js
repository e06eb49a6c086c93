// @sandjar/collections/stats: descriptive statistics over arrays of finite numbers.
import { compare, array } from "./compare.js";

function numbers(values, { allowEmpty = false } = {}) {
  array(values, "values");
  if (!allowEmpty && values.length === 0) throw new RangeError("values must not be empty");
  values.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new TypeError(`values[${i}] must be a finite number, got ${v}`);
    }
  });
  return values;
}

/** The sum, compensated (Neumaier) so long columns of decimals add up as expected. */
export function sum(values) {
  let s = 0;
  let c = 0;
  for (const v of numbers(values, { allowEmpty: true })) {
    const t = s + v;
    c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
    s = t;
  }
  return s + c;
}

export function mean(values) {
  return sum(numbers(values)) / values.length;
}

/** The `q` quantile (0..1), linearly interpolated between order statistics. */
export function quantile(values, q) {
  if (typeof q !== "number" || !(q >= 0 && q <= 1)) throw new RangeError("q must be in [0, 1]");
  const sorted = [...numbers(values)].sort(compare);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

/** Variance: of a sample (n - 1) by default, of the population with `{ sample: false }`. */
export function variance(values, { sample = true } = {}) {
  numbers(values);
  const n = values.length;
  if (sample && n < 2) throw new RangeError("a sample variance needs at least 2 values");
  const m = mean(values);
  return sum(values.map((v) => (v - m) ** 2)) / (sample ? n - 1 : n);
}

export const stddev = (values, options) => Math.sqrt(variance(values, options));

/** `bins` equal-width bins over [min, max]: `[{ from, to, count }]`; the last bin includes max. */
export function histogram(values, bins = 10) {
  numbers(values);
  if (!Number.isInteger(bins) || bins < 1 || bins > 10_000) {
    throw new RangeError("bins must be an integer from 1 to 10000");
  }
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const width = (max - min) / bins || 1;
  const out = Array.from({ length: bins }, (_, i) => ({
    from: min + i * width,
    to: i === bins - 1 ? Math.max(max, min + width) : min + (i + 1) * width,
    count: 0,
  }));
  for (const v of values) out[Math.min(bins - 1, Math.floor((v - min) / width))].count++;
  return out;
}
