package dev.sandjar.host;

import dev.sandjar.quickjs.EngineSnapshot;
import dev.sandjar.quickjs.QuickJsEngine;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sandbox's prepared {@link Template}s, per engine: the two most recently used bridge sets of
 * each engine, and the engine's empty state new ones are built from.
 *
 * <p>An engine the pool discards must not keep its templates (each holds a snapshot of up to a few
 * hundred KiB). Weak keys would not free them: every template refers to its engine through its
 * snapshot, runtime and handles, so the entry would keep its own key alive. Instead the sandbox
 * {@link #forget forgets} an engine where it retires or replaces one, and every lookup first drops
 * the entries of engines that are closed or broken (the pool closes a broken engine on its own when
 * the lease returns). The map is shared by all engine threads; an engine's entry is used only on
 * that engine's thread.
 */
final class TemplateCache {
    private static final int KEEP = 2;

    private final Map<QuickJsEngine, PerEngine> byEngine = new ConcurrentHashMap<>();

    /** The templates of one engine, and the empty state new ones are built from. */
    private static final class PerEngine {
        EngineSnapshot empty;
        final Map<List<String>, Template> byKey = new LinkedHashMap<>(4, 0.75f, true);
    }

    /**
     * The template for {@code run}'s bridges on {@code engine}, restored and serving {@code run}:
     * built (and snapshotted) first if this engine has none for them. Engine thread only.
     */
    Template restoreFor(QuickJsEngine engine, RunExecution run, List<Bridge> bridges) {
        dropDiscarded();
        PerEngine all = byEngine.computeIfAbsent(engine, e -> new PerEngine());
        List<String> key = Template.key(bridges);
        Template t = all.byKey.get(key);
        if (t != null) {
            engine.restore(t.snapshot);
            t.route.current = run;
            return t;
        }
        if (all.empty == null) {
            if (!engine.openObjects().isEmpty()) {
                throw new EngineException(
                        "engine is not empty before its first template: " + engine.openObjects());
            }
            all.empty = engine.snapshot();
        } else {
            engine.restore(all.empty);
        }
        if (all.byKey.size() >= KEEP) {
            Iterator<Template> eldest = all.byKey.values().iterator();
            eldest.next();
            eldest.remove();
        }
        t = Template.build(engine, run, bridges, key);
        t.snapshot = engine.snapshot();
        all.byKey.put(key, t);
        return t;
    }

    /** Drops {@code engine}'s templates: it is being retired or replaced. Thread-safe. */
    void forget(QuickJsEngine engine) {
        byEngine.remove(engine);
    }

    /** Engines that have templates now; thread-safe. */
    int engines() {
        return byEngine.size();
    }

    /** Drops every entry (the sandbox closed). Thread-safe. */
    void clear() {
        byEngine.clear();
    }

    private void dropDiscarded() {
        byEngine.keySet().removeIf(e -> e.isClosed() || e.isBroken());
    }
}
