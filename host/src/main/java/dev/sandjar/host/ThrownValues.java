package dev.sandjar.host;

import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsContext.PromiseState;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsValue;

/**
 * Names what the user's code threw when it is an object but not an {@code Error}: the engine reads
 * only {@code name} and {@code message}, so {@code throw new Test262Error()} would be reported as
 * {@code object}; the guest's prelude finds the class ({@code thrownClass}) instead. Primitives are
 * worded by {@link ErrorClassifier}. Engine thread only.
 */
final class ThrownValues {
    private ThrownValues() {}

    /**
     * The rejection of {@code entry} named by its class, or null when the entry is not rejected or
     * its reason is an {@code Error}, a primitive, or names itself.
     */
    static JsError named(Template template, JsValue entry) {
        JsContext ctx = template.context;
        if (ctx.promiseState(entry) != PromiseState.REJECTED) {
            return null;
        }
        try (JsValue reason = ctx.promiseResult(entry);
                JsResult cls = ctx.call(template.thrownClass, ctx.undefined(), reason)) {
            if (!cls.isOk() || !ctx.typeOf(cls.value()).equals("string")) {
                return null;
            }
            JsError plain = ctx.errorOf(reason);
            return new JsError(ctx.toJavaString(cls.value()), plain.message(), plain.stack());
        }
    }
}
