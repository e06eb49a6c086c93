// The Code node's globals (docs/code-node.md). emit and output hand a node's values to the caller;
// stream reads the node's input streams. The host checks every handle name. emit resolves when the
// caller's queue has room; a take resolves when an item arrives, or at end of stream.
(host) => {
  const ended = (r) => r.done === true;
  const iterable = (next) => ({
    next,
    return: async () => ({ done: true, value: undefined }),
    [Symbol.asyncIterator]() { return this; },
  });
  async function emit(name, value) {
    await host.call("emit", name, value);
  }
  async function output(name, value) {
    host.call("output", name, value);
  }
  function stream(name) {
    host.call("open", name); // checks the name now, where the body names it
    return iterable(async () => {
      const r = await host.call("take", name);
      return ended(r) ? { done: true, value: undefined } : { done: false, value: r.value };
    });
  }
  stream.any = () => iterable(async () => {
    const r = await host.call("takeAny");
    return ended(r) ? { done: true, value: undefined } : { done: false, value: [r.handle, r.value] };
  });
  stream.first = async (name) => {
    const r = await host.call("take", name);
    return ended(r) ? undefined : r.value;
  };
  stream.open = (name) => host.call("open", name);
  return { emit, output, stream };
}
