// One WebAssembly call of the browser runner (runner.js, WasmCalls): a fresh instance of the
// verified, compiled module, no imports, the export called with arguments the page already checked.
// The page terminates this worker when a call runs past its timeout.
self.onmessage = async (e) => {
  const { module, name, args } = e.data;
  try {
    const instance = await WebAssembly.instantiate(module, {});
    self.postMessage({ ok: true, value: instance.exports[name](...args) });
  } catch (err) {
    const message = String(err && err.message);
    let kind = "trap";
    if (err instanceof RangeError && /call stack/i.test(message)) kind = "stack";
    else if (err instanceof RangeError && /memory/i.test(message)) kind = "memory";
    self.postMessage({ ok: false, kind, message });
  }
};
