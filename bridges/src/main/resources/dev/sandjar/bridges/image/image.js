// The guest half of image (see Images.java): every call is async and runs on the host; inputs are
// refs, sandbox://media/ handles or bytes, and transforms resolve to handles.
(host, mediaInput) => {
  const opt = mediaInput.options;
  const input = (v, name) => mediaInput(v, `image.${name}`);
  const image = Object.freeze({
    info: async (img) => host.call("info", input(img, "info")),
    stats: async (img) => host.call("stats", input(img, "stats")),
    decode: async (img) => host.call("decode", input(img, "decode")),
    bytes: async (img) => host.call("bytes", input(img, "bytes")),
    blank: async (width, height, options) => host.call("blank", width, height, opt(options, "image.blank")),
    pad: async (img, options) => host.call("pad", input(img, "pad"), opt(options, "image.pad")),
    grid: async (images, options) => {
      if (!Array.isArray(images)) {
        const e = new TypeError("image.grid: images must be an array");
        e.code = "INVALID_ARGUMENT";
        throw e;
      }
      return host.call("grid", images.map((v) => input(v, "grid")), opt(options, "image.grid"));
    },
    resize: async (img, options) => host.call("resize", input(img, "resize"), opt(options, "image.resize")),
    crop: async (img, options) => host.call("crop", input(img, "crop"), opt(options, "image.crop")),
    rotate: async (img, degrees, options) =>
      host.call("rotate", input(img, "rotate"), degrees, opt(options, "image.rotate")),
    flip: async (img, direction, options) =>
      host.call("flip", input(img, "flip"), direction === undefined ? "horizontal" : direction, opt(options, "image.flip")),
    adjust: async (img, options) => host.call("adjust", input(img, "adjust"), opt(options, "image.adjust")),
    composite: async (base, overlay, options) =>
      host.call("composite", input(base, "composite"), input(overlay, "composite"), opt(options, "image.composite")),
    convert: async (img, options) => {
      const o = typeof options === "string" ? { format: options } : opt(options, "image.convert");
      return host.call("convert", input(img, "convert"), o);
    },
  });
  return { image };
}
