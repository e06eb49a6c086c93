// Cold start on V8: load the quickjs-ng wasm, make a runtime and context, run `return 1 + 1`.
// Prints the wall-clock time (ms since the epoch, fractional) at which the result existed.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(path.resolve(process.argv[2]), 'package.json'));
const { newQuickJSWASMModuleFromVariant } = require('quickjs-emscripten-core');
const variant = require('@jitl/quickjs-ng-wasmfile-release-sync').default;
const QuickJS = await newQuickJSWASMModuleFromVariant(variant);
const vm = QuickJS.newContext();
const h = vm.unwrapResult(vm.evalCode('JSON.stringify((function () { return 1 + 1; })())'));
const result = vm.getString(h);
const at = performance.timeOrigin + performance.now();
h.dispose();
vm.dispose();
console.log(result + ' ' + at.toFixed(3));
