// A bundled example: an ES module with top-level await; its default export is the result.
const greet = async (name) => `Hello, ${name}!`;
const words = ["QuickJS-ng", "WebAssembly", "Chicory", "JVM"];

export default {
  greeting: await greet("Sandjar"),
  stack: words.join(" -> "),
  fib20: (function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); })(20),
};
