// Memory of the same quickjs-ng wasm on V8, the Node side of MemoryProbe. Run with --expose-gc.
//
// usage: node --expose-gc memory.mjs NODE_MODULES_DIR idle K MORE shared|modules
//        node --expose-gc memory.mjs NODE_MODULES_DIR busy N SECONDS BODY_FILE
// idle: K idle runtimes, each with a context that has run `return 1 + 1`, held at once, then MORE
//   besides them; `shared` makes them all in one quickjs-emscripten module (one wasm memory, the
//   library's usual way), `modules` gives each its own module (its own wasm memory, as each
//   Sandjar instance has). Prints heap and RSS after GC, once with K held and once with K + MORE.
// busy: N worker threads (one JS thread per isolate: the way Node runs code at once), each with
//   its own module, run the body in a fresh runtime and context again and again for SECONDS.
//   Prints the peak heap (the workers' peaks, each sampled between runs, plus the main thread's)
//   and the peak RSS (sampled every 10 ms).
// "heap" is V8's heapUsed plus external: the wasm memory, an ArrayBuffer outside V8's heap, is
// counted in external. Prints a line `heap rss` in bytes per measurement.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const asJsonScript = (body) => 'JSON.stringify((function () {\n' + body + '\n})())';
const heap = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

async function loadModule(modulesDir) {
  const require = createRequire(path.join(path.resolve(modulesDir), 'package.json'));
  const { newQuickJSWASMModuleFromVariant } = require('quickjs-emscripten-core');
  const variant = require('@jitl/quickjs-ng-wasmfile-release-sync').default;
  return newQuickJSWASMModuleFromVariant(variant);
}

function run(vm, code) {
  const h = vm.unwrapResult(vm.evalCode(code, 'main.js'));
  try {
    return vm.getString(h);
  } finally {
    h.dispose();
  }
}

async function idle(modulesDir, counts, how) {
  const held = [];
  const shared = how === 'shared' ? await loadModule(modulesDir) : null;
  for (const k of counts) {
    for (let i = 0; i < k; i++) {
      const vm = (shared ?? (await loadModule(modulesDir))).newContext();
      if (run(vm, asJsonScript('return 1 + 1;')) !== '2') throw new Error('wrong result');
      held.push(vm);
    }
    for (let i = 0; i < 3; i++) {
      global.gc();
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(heap() + ' ' + process.memoryUsage.rss());
  }
  return held;
}

async function worker({ modulesDir, body, seconds }) {
  const QuickJS = await loadModule(modulesDir);
  const code = asJsonScript(body);
  let peak = heap();
  parentPort.postMessage({ ready: true });
  await new Promise((r) => parentPort.once('message', r));
  const end = performance.now() + seconds * 1000;
  do {
    const vm = QuickJS.newContext();
    try {
      run(vm, code);
    } finally {
      vm.dispose();
    }
    peak = Math.max(peak, heap());
  } while (performance.now() < end);
  parentPort.postMessage({ peak });
}

async function busy(modulesDir, n, seconds, body) {
  const url = new URL(import.meta.url);
  const workers = [];
  for (let i = 0; i < n; i++) {
    workers.push(new Worker(url, { workerData: { modulesDir, body, seconds } }));
  }
  await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 10);
  const done = workers.map(
    (w) =>
      new Promise((resolve, reject) => {
        w.once('message', (m) => resolve(m.peak));
        w.once('error', reject);
      }));
  workers.forEach((w) => w.postMessage('go'));
  const peaks = await Promise.all(done);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  console.log(peaks.reduce((a, b) => a + b, heap()) + ' ' + peakRss);
  await Promise.all(workers.map((w) => w.terminate()));
}

if (isMainThread) {
  const [modulesDir, what, ...rest] = process.argv.slice(2);
  if (what === 'idle') {
    await idle(modulesDir, [Number(rest[0]), Number(rest[1])], rest[2]);
  } else if (what === 'busy') {
    await busy(modulesDir, Number(rest[0]), Number(rest[1]), readFileSync(rest[2], 'utf8'));
  } else {
    throw new Error('usage: memory.mjs NODE_MODULES_DIR idle K MORE shared|modules | busy N SECONDS BODY_FILE');
  }
} else {
  await worker(workerData);
}
