// The runner page: a body, a token, limits and a Run button over runner.js's run(). A test or
// another page script drives the same function as window.sandjarRunner.run(code, options).
import { LIMITS, run } from "./runner.js";

window.sandjarRunner = Object.freeze({ run, LIMITS });

const $ = (id) => document.getElementById(id);

// The token may come in the fragment (#token=...), which the browser never sends to the server.
const fragment = new URLSearchParams(location.hash.substring(1));
if (fragment.has("token")) $("token").value = fragment.get("token");

$("run").addEventListener("click", async () => {
  const out = $("result");
  out.className = "running";
  out.textContent = "running...";
  const limits = {};
  for (const key of ["timeoutMs", "memoryMb"]) {
    if ($(key).value !== "") limits[key] = Number($(key).value);
  }
  try {
    const r = await run($("code").value, { token: $("token").value || undefined, limits });
    out.className = r.ok ? "ok" : "failed";
    out.textContent = JSON.stringify(r, null, 2);
  } catch (e) {
    out.className = "refused";
    out.textContent = String(e && e.message ? e.message : e);
  }
});
document.body.dataset.ready = "true";
