// @sandjar/text: small, dependable string helpers for sandbox code.
import { words, stripMarks } from "./words.js";

function str(value, name) {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string, got ${value === null ? "null" : typeof value}`);
  }
  return value;
}

function count(value, name, min) {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/**
 * A URL-safe slug: accents removed, lower case, letters and digits joined by `separator`, cut at
 * a word boundary so it is at most `maxLength` characters.
 */
export function slugify(text, { separator = "-", maxLength = 80 } = {}) {
  str(text, "text");
  count(maxLength, "maxLength", 1);
  const parts = stripMarks(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  let slug = "";
  for (const part of parts) {
    const next = slug ? slug + separator + part : part;
    if (next.length > maxLength) {
      return slug || part.slice(0, maxLength);
    }
    slug = next;
  }
  return slug;
}

/**
 * `text` cut to at most `maxLength` characters including the ellipsis, at a space when one is
 * close enough (within the last fifth), else mid-word.
 */
export function truncate(text, maxLength, { ellipsis = "…", wordBoundary = true } = {}) {
  str(text, "text");
  count(maxLength, "maxLength", ellipsis.length);
  const chars = Array.from(text);
  if (chars.length <= maxLength) return text;
  let cut = chars.slice(0, maxLength - Array.from(ellipsis).length).join("");
  if (wordBoundary) {
    const space = cut.search(/\s\S*$/u);
    if (space > cut.length * 0.8) cut = cut.slice(0, space);
  }
  return cut.trimEnd() + ellipsis;
}

/**
 * Wraps each paragraph of `text` at `width` columns, breaking at spaces. A word longer than the
 * width gets a line of its own. Existing line breaks are kept.
 */
export function wordWrap(text, width = 80) {
  str(text, "text");
  count(width, "width", 1);
  return text
    .split("\n")
    .map((line) => {
      const out = [];
      let current = "";
      for (const word of line.split(/ +/)) {
        if (!current) current = word;
        else if (current.length + 1 + word.length <= width) current += " " + word;
        else {
          out.push(current);
          current = word;
        }
      }
      out.push(current);
      return out.join("\n");
    })
    .join("\n");
}

const HTML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` safe to place in HTML text or a quoted attribute. */
export function escapeHtml(text) {
  return str(text, "text").replace(/[&<>"']/g, (c) => HTML[c]);
}

export const camelCase = (text) =>
  words(stripMarks(str(text, "text")))
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join("");

export const pascalCase = (text) =>
  words(stripMarks(str(text, "text")))
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
    .join("");

export const kebabCase = (text) =>
  words(stripMarks(str(text, "text"))).map((w) => w.toLowerCase()).join("-");

export const snakeCase = (text) =>
  words(stripMarks(str(text, "text"))).map((w) => w.toLowerCase()).join("_");

/**
 * Fills `{{ name }}` and `{{ a.b.c }}` placeholders from `values`. A missing value throws, unless
 * `missing` is a string to put in its place. `{{{` and `}}}` are not special: there is no escaping
 * and no logic, by design.
 */
export function template(source, values, { missing } = {}) {
  str(source, "source");
  if (values === null || typeof values !== "object") {
    throw new TypeError("values must be an object");
  }
  return source.replace(/\{\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}/g, (_, path) => {
    let v = values;
    for (const key of path.split(".")) {
      v = v !== null && typeof v === "object" && Object.hasOwn(v, key) ? v[key] : undefined;
    }
    if (v === undefined || v === null) {
      if (typeof missing === "string") return missing;
      throw new RangeError(`template value '${path}' is missing`);
    }
    return String(v);
  });
}
