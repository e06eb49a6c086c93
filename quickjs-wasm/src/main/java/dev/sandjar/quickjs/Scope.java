package dev.sandjar.quickjs;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes what it manages in reverse order when closed; close failures are added as suppressed
 * exceptions to the first one. Not thread-safe.
 */
public final class Scope implements AutoCloseable {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Registers {@code resource} and returns it. */
    public <T extends AutoCloseable> T manage(T resource) {
        resources.push(resource);
        return resource;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        while (!resources.isEmpty()) {
            AutoCloseable r = resources.pop();
            try {
                r.close();
            } catch (Exception e) {
                RuntimeException re =
                        e instanceof RuntimeException rt ? rt : new IllegalStateException(e);
                if (first == null) {
                    first = re;
                } else {
                    first.addSuppressed(re);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
