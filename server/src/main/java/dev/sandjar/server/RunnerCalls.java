package dev.sandjar.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandjar.packs.ModuleCatalog;
import dev.sandjar.packs.ModuleSummary;
import java.io.IOException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the browser runner asks the server to do for a guest, because a page cannot: call a host
 * module's export ({@code POST /api/runner/host-calls}) and make a guest {@code fetch} ({@code POST
 * /api/runner/fetches}). Each request becomes a small run on this server, under the same token,
 * built exactly as a {@code POST /api/runs} body the token could have sent: it imports the module
 * (or asks for {@code fetch}) and calls it with the page's arguments. So every rule of a run holds
 * unchanged: the policy's packs and capabilities (403 naming what is missing), the host's argument
 * checks and error messages, the Fetch bridge's SSRF guard, allowlist, caps and timeout, the run's
 * limits and the token's admission share. A token can do nothing here it could not do with a run.
 *
 * <p>The answer is the run's answer ({@code POST /api/runs}'s JSON); its value is {@code {"value":
 * ...}} when the call returned and {@code {"error": {"name", "message", "code"}}} when it threw,
 * which the page rethrows in its guest as the same error.
 */
final class RunnerCalls {
    private static final Set<String> HOST_FIELDS = Set.of("module", "export", "args");
    private static final Set<String> FETCH_FIELDS =
            Set.of(
                    "url",
                    "method",
                    "headers",
                    "bytes",
                    "text",
                    "truncate",
                    "allowPrivateNetwork",
                    "probe");

    /** An export's JavaScript name, as a facade spells it. */
    private static final Pattern EXPORT = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]{0,127}");

    /** What a call that threw answers; the guest's own error, name, message and code. */
    private static final String CATCH =
            "} catch (e) {\n"
                    + "  const o = e !== null && (typeof e === 'object' || typeof e ==="
                    + " 'function');\n"
                    + "  return { error: { name: o ? String(e.name) : typeof e,"
                    + " message: o ? String(e.message) : String(e),"
                    + " code: o && e.code !== undefined ? String(e.code) : null } };\n"
                    + "}\n";

    /** The page's fetch, as the Fetch bridge's own guest half makes it. */
    private static final String FETCH_CODE =
            "const q = sandjarRequest;\n"
                    + "try {\n"
                    + "  const init = { method: q.method, headers: q.headers,"
                    + " truncate: q.truncate === true };\n"
                    + "  if (q.bytes !== null && q.bytes !== undefined) init.body = q.bytes;\n"
                    + "  else if (q.text !== null && q.text !== undefined) init.body = q.text;\n"
                    + "  const r = await fetch(q.url, init);\n"
                    + "  return { value: { status: r.status, statusText: r.statusText, url: r.url,"
                    + " redirected: r.redirected, truncated: r.truncated,"
                    + " headers: r.headers.toJSON(), body: await r.bytes() } };\n"
                    + CATCH;

    private RunnerCalls() {}

    /**
     * The run body of a host call: 404 for a module that is not a host module this token's pack
     * list shows, 403 for a pack its policy excludes, 400 for a malformed request.
     */
    static byte[] hostCall(JsonNode root, ModuleCatalog catalog, Policy policy) throws IOException {
        fields(root, HOST_FIELDS);
        String module = text(root, "module");
        String export = text(root, "export");
        ModuleSummary summary =
                catalog.summaries().stream()
                        .filter(m -> m.specifier().equals(module))
                        .findFirst()
                        .orElse(null);
        if (summary == null || !summary.kind().id().equals("host")) {
            throw new ApiException(
                    ApiException.Code.NOT_FOUND, "no host module is served as '" + module + "'");
        }
        if (!policy.allowsPack(summary.pack())) {
            throw ApiException.forbidden(
                    "the token's policy does not allow pack '"
                            + summary.pack()
                            + "' (imported as '"
                            + module
                            + "'); it allows "
                            + Policy.sorted(policy.packs().orElseThrow()));
        }
        if (!EXPORT.matcher(export).matches()) {
            throw ApiException.badRequest(
                    "export must be a JavaScript name of at most 128 characters, got " + export);
        }
        JsonNode args = root.get("args");
        if (args == null || !args.isArray()) {
            throw ApiException.badRequest("args must be an array (the transport's JSON)");
        }
        ObjectNode run = RunBody.JSON.createObjectNode();
        run.put(
                "code",
                "import { "
                        + export
                        + " as sandjarExport } from "
                        + RunBody.JSON.writeValueAsString(module)
                        + ";\ntry {\n"
                        + "  return { value: await sandjarExport(...sandjarArgs) };\n"
                        + CATCH);
        run.putObject("globals").set("sandjarArgs", args);
        return RunBody.JSON.writeValueAsBytes(run);
    }

    /**
     * The run body of a guest fetch; 400 for a malformed request. {@code {"probe": true}} (with
     * {@code allowPrivateNetwork} at most) asks only whether the policy grants fetch: null when it
     * does, else a 403 naming what it allows, the very refusal a run asking for it gets.
     */
    static byte[] fetch(JsonNode root, Policy policy) throws IOException {
        fields(root, FETCH_FIELDS);
        JsonNode priv = root.get("allowPrivateNetwork");
        if (priv != null && !priv.isBoolean()) {
            throw ApiException.badRequest("allowPrivateNetwork must be a boolean");
        }
        JsonNode probe = root.get("probe");
        if (probe != null) {
            if (!probe.isBoolean() || !probe.asBoolean() || root.size() > (priv == null ? 1 : 2)) {
                throw ApiException.badRequest(
                        "probe must be true, with allowPrivateNetwork at most beside it");
            }
            RunService.require(policy, "fetch");
            if (priv != null && priv.asBoolean()) {
                RunService.require(policy, "allowPrivateNetwork");
            }
            return null;
        }
        text(root, "url");
        ObjectNode request = root.deepCopy();
        request.remove("allowPrivateNetwork");
        ObjectNode run = RunBody.JSON.createObjectNode();
        run.put("code", FETCH_CODE);
        run.putObject("globals").set("sandjarRequest", request);
        ObjectNode fetch = run.putObject("capabilities").putObject("fetch");
        if (priv != null && priv.asBoolean()) {
            fetch.put("allowPrivateNetwork", true);
        }
        return RunBody.JSON.writeValueAsBytes(run);
    }

    /** Refuses (400) a body that is not an object or has a field outside {@code known}. */
    static void fields(JsonNode root, Set<String> known) {
        if (root == null || !root.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        for (String f : (Iterable<String>) root::fieldNames) {
            if (!known.contains(f)) {
                throw ApiException.badRequest(
                        "the body has an unknown field '"
                                + f
                                + "'; the fields are "
                                + Policy.sorted(known));
            }
        }
    }

    private static String text(JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (v == null || !v.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        return v.asText();
    }
}
