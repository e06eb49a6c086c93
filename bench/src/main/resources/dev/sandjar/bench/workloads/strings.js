// String building (N chars): one char at a time, then parts joined, then whole-string operations.
let s = '';
for (let i = 0; i < N; i++) {
  s += String.fromCharCode(97 + (i % 26));
  if (i % 100 === 99) s += '\n';
}
const parts = [];
for (let i = 0; i < N / 2.5; i++) parts.push('item-' + i.toString(36));
const joined = parts.join(',');
return s.length + joined.toUpperCase().length + s.split('\n').length + joined.indexOf('item-zz');
