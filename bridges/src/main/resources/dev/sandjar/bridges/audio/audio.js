// The guest half of audio (see Audio.java): every call is async; the host decodes, transforms
// and encodes, and transforms return a sandbox://media/ handle. A single option may be given as a
// bare number: fadeIn(a, 0.5) is fadeIn(a, { duration: 0.5 }).
(host, mediaInput) => {
  const { defineProperty } = Object;
  const isArray = Array.isArray;
  const opt = mediaInput.options;
  const value = (v) => (v === undefined ? null : v);
  const input = (v, name) => mediaInput(v, `audio.${name}`);
  const option = (o, name, key) => (typeof o === "number" ? o : value(opt(o, `audio.${name}`)[key]));
  const clips = (v, name) => {
    if (!isArray(v)) {
      const e = new TypeError(`audio.${name}: expected an array of clips`);
      defineProperty(e, "code", { value: "INVALID_ARGUMENT", writable: true, configurable: true });
      throw e;
    }
    const out = [];
    for (let i = 0; i < v.length; i++) out[i] = mediaInput(v[i], `audio.${name}: clip ${i}`);
    return out;
  };
  const gains = (o) => {
    const g = opt(o, "audio.mix").gains;
    if (!isArray(g)) return value(g);
    const out = [];
    for (let i = 0; i < g.length; i++) out[i] = g[i];
    return out;
  };
  const audio = Object.freeze({
    info: async (a) => host.call("info", input(a, "info")),
    bytes: async (a) => host.call("bytes", input(a, "bytes")),
    normalize: async (a, o) => host.call("normalize", input(a, "normalize"), option(o, "normalize", "peak")),
    trim: async (a, o) => {
      const x = opt(o, "audio.trim");
      return host.call("trim", input(a, "trim"), value(x.start), value(x.end));
    },
    concat: async (list) => host.call("concat", clips(list, "concat")),
    mix: async (list, o) => host.call("mix", clips(list, "mix"), gains(o)),
    reverse: async (a) => host.call("reverse", input(a, "reverse")),
    fadeIn: async (a, o) => host.call("fadeIn", input(a, "fadeIn"), option(o, "fadeIn", "duration")),
    fadeOut: async (a, o) => host.call("fadeOut", input(a, "fadeOut"), option(o, "fadeOut", "duration")),
    repeat: async (a, o) => host.call("repeat", input(a, "repeat"), option(o, "repeat", "times")),
  });
  return { audio };
}
