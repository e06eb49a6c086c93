// A lambda: `./sandjar call examples/lambda.js total --args '[[{"price": 2}, {"price": 5}], 3]'`
// calls `total` with the two arguments in a fresh context and prints what it returns (21).
export function total(rows, factor) {
  return rows.reduce((sum, row) => sum + row.price * factor, 0);
}
