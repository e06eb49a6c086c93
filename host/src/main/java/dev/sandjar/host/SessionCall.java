package dev.sandjar.host;

import dev.sandjar.quickjs.EngineImage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One call of a {@link SandboxSession} as its run sees it: the session's state before the call
 * (read on the caller's thread), and what the run leaves for the session to keep (written on the
 * engine thread before the run's result completes, read after it).
 */
final class SessionCall {
    /** The session's engine image before the call; null for a session that has not run yet. */
    final EngineImage before;

    /** Global names earlier calls declared, with their kind ({@code let} or {@code var}). */
    final Map<String, String> known;

    /** Globals the host defined for the previous call, removed before this call defines its own. */
    final Set<String> previousGlobals;

    // Set on the engine thread, read after the run's result completed.
    volatile EngineImage after;
    volatile Map<String, String> declared = Map.of();

    /** Why the call's engine state could not be kept; null when it was. */
    volatile String lost;

    SessionCall(EngineImage before, Map<String, String> known, Set<String> previousGlobals) {
        this.before = before;
        this.known = Map.copyOf(known);
        this.previousGlobals = Set.copyOf(previousGlobals);
    }

    void declared(Map<String, String> names) {
        declared = Map.copyOf(new LinkedHashMap<>(names));
    }
}
