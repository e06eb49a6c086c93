// The guest half of Sandbox.warmUp: a little of everything a run's code does, so the JIT
// meets each part of the engine (the interpreter loop, calls, property access, strings,
// regular expressions, JSON, closures, classes, promises, exceptions) before traffic does.
// `rows` arrives as an input in the engine's binary format; the result goes back the same way.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
class Tally {
  constructor() {
    this.total = 0;
    this.seen = new Set();
  }
  add(row) {
    this.total += row.n;
    this.seen.add(row.name);
    return this;
  }
}
const tally = rows.reduce((t, row) => t.add(row), new Tally());
let text = "";
for (let i = 0; i < 400; i++) text += i.toString(36) + (i % 7 === 0 ? " " : ",");
const words = text.match(/[a-z]+[0-9]*/g) || [];
const replaced = text.replace(/(\d+),(\w)/g, "$2-$1").split(" ").length;
const doc = JSON.parse(JSON.stringify({ head: rows.slice(0, 10), text: text.slice(0, 300) }));
const mapped = rows
  .filter((row) => row.flag || row.n % 3 === 0)
  .map((row) => ({ ...row, tag: row.name.toUpperCase(), share: row.score / (tally.total || 1) }));
const doubled = await Promise.all([1, 2, 3].map(async (x) => x * 2));
let caught = "";
try {
  null.property;
} catch (e) {
  caught = e.name;
}
return {
  fib: fib(15),
  total: tally.total,
  names: tally.seen.size,
  words: words.length,
  replaced,
  head: doc.head.length,
  rows: mapped,
  doubled,
  caught,
  sorted: [...rows].sort((a, b) => b.score - a.score).slice(0, 3).map((r) => r.id),
};
