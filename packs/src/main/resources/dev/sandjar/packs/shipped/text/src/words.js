// Word splitting shared by the case helpers and slugify (internal to @sandjar/text).

// A word is a run of letters or digits. Inside a run, a lower-to-upper change starts a new word
// ("fooBar" -> foo, Bar), and so does the last capital of an acronym ("XMLHttp" -> XML, Http).
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{Lo}\p{Lm}\p{M}]+|\p{Lu}+|\p{N}+/gu;

export function words(text) {
  return Array.from(String(text).matchAll(WORD), (m) => m[0]);
}

// Accents and other combining marks removed ("Crème brûlée" -> "Creme brulee").
export function stripMarks(text) {
  return String(text).normalize("NFKD").replace(/\p{M}+/gu, "");
}
