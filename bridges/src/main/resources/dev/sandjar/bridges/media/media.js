// The guest half of media (see Media.java): every call is async; the host reads refs and handles.
(host, mediaInput) => {
  const opt = mediaInput.options;
  const str = (v) => (typeof v === "string" ? v : undefined);
  const build = (type, name) => async (value, options) => {
    const o = opt(options, `media.${name}`);
    return mediaInput.ref(await host.call("build", type, mediaInput(value, `media.${name}`), str(o.mimeType), str(o.filename)));
  };
  const media = Object.freeze({
    bytes: async (ref) => host.call("bytes", mediaInput(ref, "media.bytes")),
    text: async (ref, options) => {
      const o = opt(options, "media.text");
      return host.call("text", mediaInput(ref, "media.text"), typeof o.encoding === "string" ? o.encoding : "utf-8");
    },
    info: async (ref) => mediaInput.ref(await host.call("info", mediaInput(ref, "media.info"))),
    toDocument: build("document", "toDocument"),
    toImage: build("image", "toImage"),
    toAudio: build("audio", "toAudio"),
    toVideo: build("video", "toVideo"),
  });
  return { media };
}
