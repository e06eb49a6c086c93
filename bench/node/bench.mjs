// The same quickjs-ng wasm build Sandjar runs, on V8 through quickjs-emscripten: the workloads
// the JMH benchmarks run, timed here with a fresh runtime and context per run.
//
// usage: node bench.mjs NODE_MODULES_DIR INPUT.json
//   INPUT.json: { bodies: {name: body}, rows: [...], byteCount, warmupMs, measureMs }
// Prints one JSON object: { name: { median, p90, cpu, n } } in milliseconds.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [modulesDir, inputPath] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modulesDir), 'package.json'));
const { newQuickJSWASMModuleFromVariant } = require('quickjs-emscripten-core');
const variant = require('@jitl/quickjs-ng-wasmfile-release-sync').default;
const input = JSON.parse(readFileSync(inputPath, 'utf8'));
const QuickJS = await newQuickJSWASMModuleFromVariant(variant);

const asJsonScript = (body) => 'JSON.stringify((function () {\n' + body + '\n})())';

function evalString(vm, code) {
  const h = vm.unwrapResult(vm.evalCode(code, 'main.js'));
  try {
    return vm.getString(h);
  } finally {
    h.dispose();
  }
}

function evalBody(body) {
  const vm = QuickJS.newContext();
  try {
    return evalString(vm, asJsonScript(body));
  } finally {
    vm.dispose();
  }
}

const rowsJson = JSON.stringify(input.rows);
function rows() {
  const vm = QuickJS.newContext();
  try {
    const s = vm.newString(JSON.stringify(input.rows));
    vm.setProp(vm.global, '__in', s);
    s.dispose();
    return JSON.parse(
      evalString(vm, 'globalThis.rows = JSON.parse(__in);\n' + asJsonScript(input.bodies.rows)));
  } finally {
    vm.dispose();
  }
}

const bytesIn = new Uint8Array(input.byteCount);
for (let i = 0; i < bytesIn.length; i++) bytesIn[i] = (i * 31 + (i >>> 8)) & 0xff;
function bytes() {
  const vm = QuickJS.newContext();
  try {
    const ab = vm.newArrayBuffer(bytesIn.buffer);
    vm.setProp(vm.global, '__in', ab);
    ab.dispose();
    const h = vm.unwrapResult(vm.evalCode(
      'globalThis.buf = new Uint8Array(__in);\n(function () {\n' + input.bodies.bytes + '\n})().buffer'));
    try {
      const view = vm.getArrayBuffer(h);
      try {
        return view.value.slice();
      } finally {
        view.dispose();
      }
    } finally {
      h.dispose();
    }
  } finally {
    vm.dispose();
  }
}

function measure(fn) {
  const until = performance.now() + input.warmupMs;
  do fn(); while (performance.now() < until);
  const times = [];
  const cpus = [];
  const end = performance.now() + input.measureMs;
  do {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  } while (performance.now() < end || times.length < 5);
  const q = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];
  return { median: q(times, 0.5), p90: q(times, 0.9), cpu: q(cpus, 0.5), n: times.length };
}

// Same answers as the JVM systems, or the numbers mean nothing.
if (evalBody(input.bodies.trivial) !== '2') throw new Error('trivial run gave the wrong result');
const gotRows = rows();
if (gotRows.length !== input.rows.length || JSON.stringify(gotRows) !== rowsJson) {
  throw new Error('rows did not round-trip');
}
const gotBytes = new Uint8Array(bytes());
if (gotBytes.length !== bytesIn.length || gotBytes.some((b, i) => b !== bytesIn[i])) {
  throw new Error('bytes did not round-trip');
}

const out = { trivial: measure(() => evalBody(input.bodies.trivial)) };
for (const name of input.compute) {
  out[name] = measure(() => evalBody(input.bodies[name]));
  out[name].result = evalBody(input.bodies[name]);
}
out.rows = measure(rows);
out.bytes = measure(bytes);
out.version = process.version;
console.log(JSON.stringify(out));
