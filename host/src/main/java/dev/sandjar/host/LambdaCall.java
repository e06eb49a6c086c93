package dev.sandjar.host;

import java.util.List;

/**
 * A run that calls an exported function of its module with arguments (docs/sessions.md, "Lambdas"):
 * cold, or one call of a {@link WarmLambda}, whose module stays instantiated in its engine image
 * between calls under {@link #MODULE_GLOBAL}.
 */
final class LambdaCall {
    /** Where a warm lambda keeps its module's namespace between calls. */
    static final String MODULE_GLOBAL = "__sandjar$lambda";

    final String function;
    final List<Object> args;

    /** Keep the module for later calls (a warm lambda's first call). */
    final boolean keep;

    /**
     * A warm lambda's later call: the module is in the image already, and these are the bridges its
     * imports declared on the first call (dispatch indices after the request's own).
     */
    final List<Bridge> linked;

    // Set on the engine thread by a first warm call, read after its result completes.
    volatile List<Bridge> linkedAfter = List.of();
    volatile boolean kept;

    LambdaCall(String function, List<Object> args, boolean keep, List<Bridge> linked) {
        this.function = function;
        this.args = args;
        this.keep = keep;
        this.linked = linked;
    }

    boolean loaded() {
        return linked != null;
    }
}
