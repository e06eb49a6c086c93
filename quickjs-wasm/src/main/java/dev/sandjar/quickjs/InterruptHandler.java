package dev.sandjar.quickjs;

/**
 * Asked periodically while guest code runs; returning true stops it with an uncatchable {@code
 * InternalError: interrupted}. Runs on the engine thread; must be fast and must not call the
 * engine.
 */
@FunctionalInterface
public interface InterruptHandler {
    boolean shouldInterrupt();
}
