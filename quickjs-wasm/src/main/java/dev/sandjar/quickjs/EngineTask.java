package dev.sandjar.quickjs;

/** Work run on an engine's own thread by {@link QuickJsEngine#call(EngineTask)}. */
@FunctionalInterface
public interface EngineTask<T> {
    T run(QuickJsEngine engine);
}
