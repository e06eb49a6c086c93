// N log lines, then matching, a global exec loop, test, replace with a callback and split.
const lines = [];
for (let i = 0; i < N; i++) {
  lines.push('2026-12-02T10:' + String(i % 60).padStart(2, '0') + ':00Z INFO user' + i +
    '@example.com GET /api/v1/items/' + i + '?q=' + ((i * 7919) % 1000) + ' 200 ' + (i % 997) + 'ms');
}
const text = lines.join('\n');
const emails = text.match(/[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi).length;
let q = 0;
const items = /\/items\/(\d+)\?q=(\d+)/g;
let m;
while ((m = items.exec(text)) !== null) q += Number(m[2]);
const slow = lines.filter((l) => /\s(\d{3,})ms$/.test(l)).length;
const masked = text.replace(/user(\d+)@/g, (m, d) => 'u' + d.length + '@').length;
const fields = text.split(/\s+/).length;
return { emails, q, slow, masked, fields };
