package dev.sandjar.quickjs;

import java.util.List;

/**
 * A Java function callable from the guest. Runs on the engine thread.
 *
 * <p>{@code thisArg} and {@code args} are borrowed: valid only during the call, never closed by the
 * callee (closing one throws); {@link JsValue#dup()} keeps one longer. The returned value is
 * consumed by the engine; return {@code null} for {@code undefined}. An exception becomes a JS
 * {@code Error} in the guest (a {@link JsException} keeps its name and message); it never unwinds
 * through the engine's frames.
 */
@FunctionalInterface
public interface HostFunction {
    JsValue call(JsContext context, JsValue thisArg, List<JsValue> args);
}
