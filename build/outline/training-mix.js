// Training mix for the outlining profile: a broad sample of the language and its builtins.
class Animal { #name; constructor(n) { this.#name = n; } get name() { return this.#name; } set name(v) { this.#name = v; } speak() { return this.#name + ' speaks'; } static of(n) { return new this(n); } }
class Dog extends Animal { speak() { return super.speak() + ' woof'; } }
let out = [];
for (let i = 0; i < 200; i++) { const d = Dog.of('d' + i); d.name = d.name + '!'; out.push(d.speak()); }
function makeCounter() { let c = 0; return { inc: () => ++c, get: () => c }; }
const ctr = makeCounter(); for (let i = 0; i < 500; i++) ctr.inc();
function* gen(n) { for (let i = 0; i < n; i++) yield i * 2; return 'done'; }
let gs = 0; for (const v of gen(300)) gs += v;
const it = gen(3); it.next(); it.return(5);
async function af(x) { await null; return x + 1; }
(async () => { let s = 0; for (let i = 0; i < 100; i++) s += await af(i); out.push(s); })();
Promise.all([1, 2, 3].map(x => Promise.resolve(x))).then(v => out.push(v.length));
for (let i = 0; i < 200; i++) { try { if (i % 3 === 0) throw new RangeError('r' + i); null.x; } catch (e) { out.push(e.message.length); } finally { gs++; } }
const { a, b: [c, ...rest], ...others } = { a: 1, b: [2, 3, 4], d: 5, e: 6 };
const arr = [...rest, ...[7, 8], ...'xyz']; const o2 = { ...others, f: 7 };
function va(...args) { return args.length + arguments.length; } va(...arr);
const m = new Map(); const st = new Set(); const wm = new WeakMap();
for (let i = 0; i < 1000; i++) { m.set('k' + (i % 100), i); st.add(i % 37); wm.set({}, i); }
let ms = 0; for (const [k, v] of m) ms += v; m.forEach((v, k) => ms -= v); st.has(5); m.delete('k1');
const ta = new Float64Array(1000); const u8 = new Uint8Array(256); const i32 = new Int32Array(new ArrayBuffer(4096));
for (let i = 0; i < 1000; i++) { ta[i] = Math.sqrt(i) * 1.5; u8[i & 255] = i; i32[i] = i * 7 | 0; }
ta.sort(); u8.subarray(2, 10).reverse(); new DataView(i32.buffer).getFloat32(8, true);
let big = 1n; for (let i = 1n; i < 60n; i++) big *= i; out.push((big % 1000007n).toString(), BigInt.asUintN(64, -1n) >> 3n, 2n ** 100n);
const p = new Proxy({}, { get: (t, k) => k === 'x' ? 42 : Reflect.get(t, k), set: (t, k, v) => Reflect.set(t, k, v * 2), has: () => true, deleteProperty: () => true });
for (let i = 0; i < 200; i++) { p.y = i; gs += p.x + p.y; 'z' in p; delete p.z; }
const obj = {}; Object.defineProperty(obj, 'g', { get() { return 1; }, enumerable: false });
Object.keys({ a: 1, b: 2 }).concat(Object.entries({ c: 3 })).flat(); Object.freeze(o2); Object.assign({}, o2);
let s = ''; for (let i = 0; i < 500; i++) s += String.fromCharCode(65 + i % 26);
out.push(s.toLowerCase().split('a').join('-').replace(/b+/g, 'B').padStart(600, '.').slice(10, 50).trim().indexOf('c'), s.at(-1), s.codePointAt(3), s.normalize('NFC').length, 'x'.repeat(10), s.localeCompare('abc'), s.includes('XYZ'), s.startsWith('ABC'), `t${s.length}e`);
const A = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
A.sort((x, y) => x - y); A.map(x => x * 2).filter(x => x % 3).reduce((a, b) => a + b, 0); A.indexOf(500); A.includes(3); A.findLast(x => x < 10); A.splice(10, 5, 1, 2); A.slice(-5).fill(0); [3, 1, 2].toSorted(); A.join(',').length; Array.isArray(A); A.every(x => x >= 0); A.some(x => x > 998);
const j = JSON.stringify({ list: A.slice(0, 100), nested: { s, n: null, t: true, f: 1.5e-7 } }, null, 2); JSON.parse(j, (k, v) => v);
const re = /(\d{4})-(\d{2})-(\d{2})/g; const text = 'on 2024-01-05 and 2025-12-31, also 1999-07-04'.repeat(20);
for (const mm of text.matchAll(re)) gs += +mm[1]; /^[\w.]+@[a-z]+\.(com|org)$/i.test('Foo.Bar@example.ORG'); text.replace(/(?<y>\d{4})/g, '$<y>!'); 'a1b2c3'.split(/\d/); /\p{L}+/u.exec('héllo wörld');
const sym = Symbol('s'); const so = { [sym]: 1, [Symbol.iterator]: function* () { yield 1; } }; [...so];
const d = new Date(2020, 1, 29); d.setMonth(5); d.toISOString(); Date.UTC(2000, 0, 1);
(0.1 + 0.2).toFixed(5); Number.parseFloat('3.14e2'); (255).toString(16); Math.max(...A.slice(0, 50)); Math.hypot(3, 4); parseInt('z', 36);
label: for (let i = 0; i < 10; i++) { for (let k = 0; k < 10; k++) { if (k === 5) continue label; if (i === 8) break label; } }
switch (gs % 4) { case 0: gs++; break; case 1: gs--; break; default: gs = 0; }
let und; und ??= 5; und ||= 6; und &&= 7; const oc = obj?.x?.y ?? 'none'; typeof und; void 0; !!und; und instanceof Object;
const eobj = new Error('e', { cause: 1 }); eobj.stack; new AggregateError([eobj]);
globalThis.tmp = 1; delete globalThis.tmp;
return out.length + gs + ms;
