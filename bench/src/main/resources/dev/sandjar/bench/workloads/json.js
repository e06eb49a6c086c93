// N items: a ~1 MB document at 6,000, built once, then parsed and stringified three times.
const items = [];
for (let i = 0; i < N; i++) {
  items.push({
    id: i,
    name: 'name-' + i,
    email: 'user' + i + '@example.com',
    active: i % 3 === 0,
    score: i * 1.25,
    tags: ['red', 'green', 'blue'].slice(0, 1 + (i % 3)),
    address: { street: i + ' Main St', city: 'City ' + (i % 100), zip: String(10000 + i) },
  });
}
const text = JSON.stringify({ items });
let n = 0;
for (let k = 0; k < 3; k++) {
  const doc = JSON.parse(text);
  n += JSON.stringify(doc).length + doc.items.length;
}
return { bytes: text.length, n };
