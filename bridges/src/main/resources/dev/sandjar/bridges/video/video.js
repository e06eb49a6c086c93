// The guest half of video (see Video.java): every call is async; the host runs ffmpeg with an argv
// it builds itself, and transforms return a sandbox://media/ handle. rotate takes a bare number of
// degrees too: rotate(v, 90) is rotate(v, { degrees: 90 }).
(host, mediaInput) => {
  const opt = mediaInput.options;
  const value = (v) => (v === undefined ? null : v);
  const input = (v, name) => mediaInput(v, `video.${name}`);
  const video = Object.freeze({
    info: async (v) => host.call("info", input(v, "info")),
    bytes: async (v) => host.call("bytes", input(v, "bytes")),
    trim: async (v, o) => {
      const x = opt(o, "video.trim");
      return host.call("trim", input(v, "trim"), value(x.start), value(x.end));
    },
    resize: async (v, o) => {
      const x = opt(o, "video.resize");
      return host.call("resize", input(v, "resize"), value(x.width), value(x.height));
    },
    rotate: async (v, o) =>
      host.call("rotate", input(v, "rotate"), typeof o === "number" ? o : value(opt(o, "video.rotate").degrees)),
    addAudio: async (v, a, o) =>
      host.call("addAudio", input(v, "addAudio"), mediaInput(a, "video.addAudio: audio"),
        opt(o, "video.addAudio").keepOriginalAudio === true),
    extractAudio: async (v, o) => host.call("extractAudio", input(v, "extractAudio"), value(opt(o, "video.extractAudio").format)),
    extractFrame: async (v, o) => {
      const x = opt(o, "video.extractFrame");
      return host.call("extractFrame", input(v, "extractFrame"), value(x.time), value(x.format));
    },
  });
  return { video };
}
