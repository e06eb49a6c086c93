// The guest half of fetch (see Fetch.java). The host does the request; this builds the
// familiar shapes around it: options in, a Response-like object out.
(host) => {
  const { keys, freeze } = Object;
  const isArray = Array.isArray;

  function headerPairs(h) {
    if (h === undefined || h === null) return [];
    if (isArray(h)) {
      return h.map((pair, i) => {
        if (!isArray(pair) || pair.length !== 2) {
          throw new TypeError(`fetch: options.headers[${i}] must be a [name, value] pair`);
        }
        return [String(pair[0]), String(pair[1])];
      });
    }
    if (typeof h === "object") return keys(h).map((k) => [k, String(h[k])]);
    throw new TypeError("fetch: options.headers must be an object or an array of [name, value] pairs");
  }

  function makeHeaders(map) {
    const names = keys(map).sort();
    const get = (name) => {
      const v = map[String(name).toLowerCase()];
      return v === undefined ? null : v.join(", ");
    };
    function* entries() { for (const n of names) yield [n, map[n].join(", ")]; }
    return freeze({
      get,
      has: (name) => map[String(name).toLowerCase()] !== undefined,
      getAll: (name) => (map[String(name).toLowerCase()] || []).slice(),
      entries,
      keys: function* () { yield* names; },
      values: function* () { for (const n of names) yield map[n].join(", "); },
      forEach(fn) { for (const n of names) fn(map[n].join(", "), n, this); },
      [Symbol.iterator]: entries,
      toJSON: () => map,
    });
  }

  function makeResponse(r) {
    let used = false;
    const take = () => {
      if (used) throw new TypeError("fetch: the response body has already been read");
      used = true;
      return r.body;
    };
    return freeze({
      ok: r.status >= 200 && r.status < 300,
      status: r.status,
      statusText: r.statusText,
      url: r.url,
      redirected: r.redirected,
      truncated: r.truncated,
      headers: makeHeaders(r.headers),
      get bodyUsed() { return used; },
      text: async () => host.call("decode", take()),
      json: async () => JSON.parse(host.call("decode", take())),
      arrayBuffer: async () => {
        const b = take();
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      },
      bytes: async () => take(),
    });
  }

  async function fetch(url, options) {
    const o = options === undefined || options === null ? {} : options;
    const headers = headerPairs(o.headers);
    const body = o.body;
    let bytes = null;
    let text = null;
    if (body === undefined || body === null) {
      // no body
    } else if (typeof body === "string") {
      text = body;
    } else if (body instanceof Uint8Array) {
      bytes = body;
    } else if (body instanceof ArrayBuffer) {
      bytes = new Uint8Array(body);
    } else if (ArrayBuffer.isView(body)) {
      bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    } else {
      text = JSON.stringify(body);
      if (!headers.some((p) => p[0].toLowerCase() === "content-type")) {
        headers.push(["content-type", "application/json"]);
      }
    }
    const method = o.method === undefined ? "GET" : String(o.method).toUpperCase();
    const r = await host.call("request", String(url), method, headers, bytes, text, o.truncate === true);
    return makeResponse(r);
  }

  return { fetch };
}
