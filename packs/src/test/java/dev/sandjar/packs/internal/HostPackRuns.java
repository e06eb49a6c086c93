package dev.sandjar.packs.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.packs.CatalogResolution;
import dev.sandjar.packs.ModuleCatalog;
import java.util.List;
import java.util.Map;

/**
 * Runs bodies that import a shipped host pack through {@link Sandbox#run}, the way an application
 * does: the body's imports are its declaration.
 */
public final class HostPackRuns {
    /**
     * A prelude for bodies: {@code failure(promise)} resolves to {@code [name, code, message]} of
     * the error the promise rejects with (or {@code "resolved"}).
     */
    public static final String FAILURE =
            "const failure = async (p) => { try { await p; return 'resolved'; } catch (e) {"
                    + " return [e.name, e.code, e.message]; } };\n";

    private final Sandbox sandbox;
    private final ModuleCatalog catalog;

    public HostPackRuns(Sandbox sandbox) {
        this.sandbox = sandbox;
        this.catalog = ModuleCatalog.builder(sandbox).build();
    }

    public RunResult run(String code) {
        CatalogResolution r = catalog.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        return sandbox.run(RunRequest.builder(code).modules(r.moduleResolution()).build());
    }

    /** Runs {@code code} with its imports resolved and exactly {@code limits}. */
    public RunResult run(String code, Limits limits) {
        CatalogResolution r = catalog.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        return sandbox.run(
                RunRequest.builder(code).modules(r.moduleResolution()).limits(limits).build());
    }

    public RunResult run(String code, Map<String, Object> globals) {
        CatalogResolution r = catalog.resolveBody(code);
        assertTrue(r.isOk(), () -> r.errors().toString());
        // Globals count against outputBytes; hostile documents are bigger than its default. The
        // modules' own caps are under test here, so host calls may take up to 1 GiB (hostBytes);
        // what hostBytes itself does is tested with its default and below.
        RunRequest.Builder b =
                RunRequest.builder(code)
                        .modules(r.moduleResolution())
                        .limits(
                                Limits.DEFAULTS.toBuilder()
                                        .outputBytes(10L << 20)
                                        .hostBytes(1L << 30)
                                        .build());
        globals.forEach(b::global);
        return sandbox.run(b.build());
    }

    public Object value(String code) {
        return value(code, Map.of());
    }

    public Object value(String code, Map<String, Object> globals) {
        RunResult r = run(code, globals);
        assertTrue(r.isOk(), () -> "expected success: " + r.error() + "\n" + r.error().stack());
        return r.value();
    }

    /** The {@code [name, code, message]} a body's {@code return failure(...)} gave. */
    @SuppressWarnings("unchecked")
    public List<Object> failure(String code) {
        return (List<Object>) value(FAILURE + code);
    }

    public ModuleCatalog catalog() {
        return catalog;
    }
}
