// The guest half of canvas (see Canvas.java): createCanvas(w, h) returns a surface whose 2D
// context records every call as an operation; toBytes()/toImage() send the recording to the host,
// which replays it on a Java2D Graphics2D. measureText and getImageData ask the host at once
// (synchronously). A canvas holds at most MAX_OPS operations (the host checks again).
(host, mediaInput) => {
  const { defineProperty, freeze } = Object;
  let maxOps; // asked on first use: no host call is possible while the bridges are built
  const MAX = () => (maxOps === undefined ? (maxOps = host.call("maxOps")) : maxOps);
  const fail = (Ctor, name, code, message) => {
    const e = new Ctor(message);
    if (name !== Ctor.name) defineProperty(e, "name", { value: name, writable: true, configurable: true });
    defineProperty(e, "code", { value: code, writable: true, configurable: true });
    return e;
  };
  const num = (v) => (typeof v === "number" ? v : Number(v));
  const stringify = JSON.stringify;
  const stringSlice = String.prototype.slice;
  const callOf = Function.prototype.call.bind(Function.prototype.call);
  // The recording crosses as JSON text in pieces of 8,192 units: one long string is far faster
  // for the transport than thousands of small arrays.
  const encoded = (ops) => {
    const s = stringify(ops);
    const out = [];
    for (let i = 0; i < s.length; i += 8192) out[out.length] = callOf(stringSlice, s, i, i + 8192);
    return out;
  };

  class CanvasGradient {
    #spec;
    constructor(spec) { this.#spec = spec; }
    addColorStop(offset, color) {
      const o = num(offset);
      if (!(o >= 0 && o <= 1)) {
        throw fail(RangeError, "IndexSizeError", "INDEX_SIZE", `addColorStop: offset must be from 0 to 1, got ${offset}`);
      }
      this.#spec.stops.push([o, String(color)]);
    }
    static spec(g) { return g.#spec; }
  }
  const gradientSpec = CanvasGradient.spec;
  delete CanvasGradient.spec;

  class ImageData {
    constructor(a, b, c) {
      if (a instanceof Uint8ClampedArray) {
        this.data = a; this.width = b; this.height = c === undefined ? a.length / 4 / b : c;
      } else {
        this.width = a; this.height = b; this.data = new Uint8ClampedArray(4 * a * b);
      }
    }
  }

  const STATE = ["fillStyle", "strokeStyle", "lineWidth", "lineCap", "lineJoin", "miterLimit", "font",
    "textAlign", "textBaseline", "globalAlpha", "globalCompositeOperation", "lineDashOffset", "imageSmoothingEnabled"];
  const DEFAULTS = { fillStyle: "#000000", strokeStyle: "#000000", lineWidth: 1, lineCap: "butt", lineJoin: "miter",
    miterLimit: 10, font: "10px sans-serif", textAlign: "start", textBaseline: "alphabetic", globalAlpha: 1,
    globalCompositeOperation: "source-over", lineDashOffset: 0, imageSmoothingEnabled: true };

  const createCanvas = (width, height) => {
    const w = num(width);
    const h = num(height);
    host.call("check", w, h);
    const ops = [];
    const sources = [];
    const blobs = [];
    let count = 0;
    let dash = [];
    const stack = [];
    let state = { ...DEFAULTS };
    const record = (op) => {
      if (count >= MAX()) {
        throw fail(RangeError, "MediaError", "LIMIT",
          `canvas: this canvas has recorded ${MAX()} operations; the limit is ${MAX()} per canvas`);
      }
      count++;
      ops.push(op);
    };
    const source = (img) => {
      if (img !== null && typeof img === "object" && img[SURFACE]) {
        const inner = img[SURFACE]();
        if (count + inner.count + 1 > MAX()) {
          throw fail(RangeError, "MediaError", "LIMIT",
            `canvas: drawing this canvas would make ${count + inner.count + 1} operations; the limit is ${MAX()} per canvas`);
        }
        count += inner.count;
        sources.push({ canvas: [inner.width, inner.height, encoded(inner.ops), inner.sources, inner.blobs] });
      } else {
        sources.push(mediaInput(img, "canvas.drawImage"));
      }
      return sources.length - 1;
    };
    const style = (v) => {
      if (v instanceof CanvasGradient) {
        const s = gradientSpec(v);
        return [s.kind, ...s.args, s.stops.map((p) => [p[0], p[1]])];
      }
      return String(v);
    };
    const ctx = {
      save() { stack.push({ ...state, dash: [...dash] }); record(["save"]); },
      restore() {
        if (stack.length) { const s = stack.pop(); dash = s.dash; delete s.dash; state = s; }
        record(["restore"]);
      },
      translate(x, y) { record(["translate", num(x), num(y)]); },
      rotate(a) { record(["rotate", num(a)]); },
      scale(x, y) { record(["scale", num(x), num(y)]); },
      transform(a, b, c, d, e, f) { record(["transform", num(a), num(b), num(c), num(d), num(e), num(f)]); },
      setTransform(a, b, c, d, e, f) {
        if (a !== null && typeof a === "object") ({ a, b, c, d, e, f } = a);
        record(["setTransform", num(a), num(b), num(c), num(d), num(e), num(f)]);
      },
      resetTransform() { record(["setTransform", 1, 0, 0, 1, 0, 0]); },
      beginPath() { record(["beginPath"]); },
      closePath() { record(["closePath"]); },
      moveTo(x, y) { record(["moveTo", num(x), num(y)]); },
      lineTo(x, y) { record(["lineTo", num(x), num(y)]); },
      quadraticCurveTo(cx, cy, x, y) { record(["quadraticCurveTo", num(cx), num(cy), num(x), num(y)]); },
      bezierCurveTo(a, b, c, d, x, y) { record(["bezierCurveTo", num(a), num(b), num(c), num(d), num(x), num(y)]); },
      arc(x, y, r, s, e, ccw) {
        if (num(r) < 0) throw fail(RangeError, "IndexSizeError", "INDEX_SIZE", `arc: the radius is negative (${r})`);
        record(["arc", num(x), num(y), num(r), num(s), num(e), !!ccw]);
      },
      arcTo(x1, y1, x2, y2, r) { record(["arcTo", num(x1), num(y1), num(x2), num(y2), num(r)]); },
      ellipse(x, y, rx, ry, rot, s, e, ccw) {
        record(["ellipse", num(x), num(y), num(rx), num(ry), num(rot), num(s), num(e), !!ccw]);
      },
      rect(x, y, w, h) { record(["rect", num(x), num(y), num(w), num(h)]); },
      roundRect(x, y, w, h, r = 0) {
        const radius = Array.isArray(r) ? num(r[0] ?? 0) : num(typeof r === "object" ? r.x : r);
        record(["roundRect", num(x), num(y), num(w), num(h), radius]);
      },
      fill(rule) { record(["fill", rule === "evenodd" ? "evenodd" : "nonzero"]); },
      stroke() { record(["stroke"]); },
      clip(rule) { record(["clip", rule === "evenodd" ? "evenodd" : "nonzero"]); },
      fillRect(x, y, w, h) { record(["fillRect", num(x), num(y), num(w), num(h)]); },
      strokeRect(x, y, w, h) { record(["strokeRect", num(x), num(y), num(w), num(h)]); },
      clearRect(x, y, w, h) { record(["clearRect", num(x), num(y), num(w), num(h)]); },
      fillText(t, x, y, maxWidth) {
        record(["fillText", String(t), num(x), num(y), maxWidth === undefined ? -1 : num(maxWidth)]);
      },
      strokeText(t, x, y, maxWidth) {
        record(["strokeText", String(t), num(x), num(y), maxWidth === undefined ? -1 : num(maxWidth)]);
      },
      measureText(t) { return host.call("measure", state.font, String(t)); },
      setLineDash(segments) {
        const s = Array.from(segments, num);
        if (s.some((v) => !(v >= 0) || !isFinite(v))) return;
        dash = s.length % 2 ? [...s, ...s] : s;
        record(["setLineDash", dash]);
      },
      getLineDash() { return [...dash]; },
      createLinearGradient(x0, y0, x1, y1) {
        return new CanvasGradient({ kind: "linear", args: [num(x0), num(y0), num(x1), num(y1)], stops: [] });
      },
      createRadialGradient(x0, y0, r0, x1, y1, r1) {
        return new CanvasGradient({ kind: "radial", args: [num(x0), num(y0), num(r0), num(x1), num(y1), num(r1)], stops: [] });
      },
      drawImage(img, ...args) {
        if (![2, 4, 8].includes(args.length)) {
          throw fail(TypeError, "TypeError", "INVALID_ARGUMENT", `drawImage: takes 3, 5 or 9 arguments, got ${args.length + 1}`);
        }
        record(["drawImage", source(img), ...args.map(num)]);
      },
      createImageData(a, b) {
        return a instanceof ImageData ? new ImageData(a.width, a.height) : new ImageData(num(a), num(b));
      },
      getImageData(sx, sy, sw, sh) {
        const r = host.call("pixels", w, h, encoded(ops), sources, blobs, num(sx), num(sy), num(sw), num(sh));
        return new ImageData(new Uint8ClampedArray(r.buffer, r.byteOffset, r.byteLength), num(sw), num(sh));
      },
      putImageData(data, dx, dy) {
        if (!(data instanceof ImageData)) {
          throw fail(TypeError, "TypeError", "INVALID_ARGUMENT", "putImageData: expected an ImageData");
        }
        const d = data.data;
        blobs.push(new Uint8Array(d.buffer, d.byteOffset, d.byteLength).slice());
        record(["putImageData", blobs.length - 1, data.width, data.height, num(dx), num(dy)]);
      },
    };
    for (const key of STATE) {
      defineProperty(ctx, key, {
        get: () => state[key],
        set: (v) => {
          const value = key === "fillStyle" || key === "strokeStyle" ? v : key === "imageSmoothingEnabled" ? !!v
            : typeof DEFAULTS[key] === "number" ? num(v) : String(v);
          if (typeof value === "number" && !isFinite(value)) return;
          state[key] = value;
          record(["set", key, key === "fillStyle" || key === "strokeStyle" ? style(value) : value]);
        },
        enumerable: true,
      });
    }
    const surface = {
      width: w,
      height: h,
      getContext: (kind) => (kind === undefined || kind === "2d" ? ctx : null),
      toBytes: async (mimeType = "image/png", quality) =>
        host.call("render", w, h, encoded(ops), sources, blobs, String(mimeType), quality === undefined ? -1 : num(quality), false),
      toImage: async (mimeType = "image/png", quality) =>
        host.call("render", w, h, encoded(ops), sources, blobs, String(mimeType), quality === undefined ? -1 : num(quality), true),
      get operations() { return count; },
      [SURFACE]: () => ({ width: w, height: h, ops: [...ops], sources: [...sources], blobs: [...blobs], count }),
    };
    ctx.canvas = surface;
    return freeze(surface);
  };
  const SURFACE = Symbol("canvas surface");
  const canvas = freeze({
    measureText: (text, font = "10px sans-serif") => host.call("measure", String(font), String(text)),
  });
  return { createCanvas, canvas, ImageData };
}
