package dev.sandjar.host;

import dev.sandjar.quickjs.EngineSnapshot;
import dev.sandjar.quickjs.JsContext;
import dev.sandjar.quickjs.JsError;
import dev.sandjar.quickjs.JsResult;
import dev.sandjar.quickjs.JsRuntime;
import dev.sandjar.quickjs.JsValue;
import dev.sandjar.quickjs.ModuleLoader;
import dev.sandjar.quickjs.QuickJsEngine;
import dev.sandjar.transport.codec.Transport;
import java.util.ArrayList;
import java.util.List;

/**
 * A prepared runtime and context for one set of bridges, snapshotted: the codec, the bridges' guest
 * code, the prelude and the hardening are built once per engine and bridge set, and every run
 * restores the snapshot instead of building them again. A restore rewrites the engine's whole
 * memory, so each run starts exactly as fresh as if it had built everything itself; nothing of an
 * earlier run survives. {@link TemplateCache} keeps them per engine.
 *
 * <p>The host callbacks compiled into the snapshot (the dispatcher, the interrupt handler, the
 * module loader) are trampolines to {@link #current}, the run the template serves now. Engine
 * thread only.
 */
final class Template {
    static final String PRELUDE = CodeAnalyzer.resource("prelude.js");

    final List<String> key;
    final JsRuntime runtime;
    final JsContext context;
    final JsValue encode;
    final JsValue decode;
    final JsValue prefix;
    final JsValue makeHost;
    final JsValue defineGlobals;
    final JsValue defineGlobalValues;
    final JsValue protoCheck;
    final JsValue trust;
    final JsValue thrownClass;
    final Route route;
    EngineSnapshot snapshot;

    /** Where the snapshot's host callbacks go: the run this template serves now, or none. */
    static final class Route {
        RunExecution current;
    }

    private Template(
            List<String> key, Route route, JsRuntime runtime, JsContext context, JsValue[] fns) {
        this.key = key;
        this.route = route;
        this.runtime = runtime;
        this.context = context;
        this.encode = fns[0];
        this.decode = fns[1];
        this.prefix = fns[2];
        this.makeHost = fns[3];
        this.defineGlobals = fns[4];
        this.defineGlobalValues = fns[5];
        this.protoCheck = fns[6];
        this.trust = fns[7];
        this.thrownClass = fns[8];
    }

    /** Names and guest sources, in order: two runs share a template when these are equal. */
    static List<String> key(List<Bridge> bridges) {
        List<String> key = new ArrayList<>(bridges.size() * 2);
        for (Bridge b : bridges) {
            key.add(b.name());
            key.add(b.guestSource());
        }
        return key;
    }

    /** Builds the template for {@code bridges} on {@code engine}, serving {@code run}. */
    static Template build(
            QuickJsEngine engine, RunExecution run, List<Bridge> bridges, List<String> key) {
        Route route = new Route();
        route.current = run;
        JsRuntime rt = engine.newRuntime();
        rt.setInterruptHandler(() -> route.current != null && route.current.shouldInterrupt());
        rt.setModuleLoader(
                new ModuleLoader() {
                    @Override
                    public String normalize(String importer, String specifier) {
                        return route.current.loader().normalize(importer, specifier);
                    }

                    @Override
                    public String load(String moduleName) {
                        return route.current.loader().load(moduleName);
                    }
                });
        JsContext ctx = rt.newContext();
        JsValue codec = trusted(run, ctx.evalScript(Transport.guestSource(), "sandjar:codec.js"));
        JsValue install = trusted(run, ctx.evalScript(PRELUDE, "sandjar:prelude.js"));
        JsValue factories = ctx.newArray();
        JsValue names = ctx.newArray();
        JsValue sources = ctx.newArray();
        try (JsValue codecText = ctx.newString(Transport.guestSource());
                JsValue preludeText = ctx.newString(PRELUDE)) {
            ctx.setProperty(sources, "0", codecText);
            ctx.setProperty(sources, "1", preludeText);
        }
        for (int i = 0; i < bridges.size(); i++) {
            Bridge b = bridges.get(i);
            JsResult f =
                    ctx.evalScript(
                            "\"use strict\";\n(" + b.guestSource() + "\n)",
                            "sandjar:bridge:" + b.name());
            if (!f.isOk()) {
                JsError err = f.error();
                f.close();
                throw new EngineException(
                        "bridge " + b.name() + ": its guest source failed to load: " + err);
            }
            try (JsValue fn = f.orThrow();
                    JsValue name = ctx.newString(b.name());
                    JsValue text = ctx.newString(b.guestSource())) {
                ctx.setProperty(factories, String.valueOf(i), fn);
                ctx.setProperty(names, String.valueOf(i), name);
                ctx.setProperty(sources, String.valueOf(i + 2), text);
            }
        }
        learnAtoms(ctx, codec);
        JsValue[] fns = new JsValue[9];
        try (JsValue dispatch =
                        ctx.newFunction("dispatch", (c, s, a) -> route.current.dispatch(c, s, a));
                JsResult installed =
                        ctx.call(
                                install,
                                ctx.undefined(),
                                dispatch,
                                codec,
                                factories,
                                names,
                                sources)) {
            if (!installed.isOk()) {
                JsError err = installed.error();
                if (err.name().equals("SandjarReservedGlobal")) {
                    throw new InvalidRequestException(err.message());
                }
                throw run.setupFailure(err);
            }
            JsValue api = installed.value();
            fns[0] = codec.get("encode");
            fns[1] = codec.get("decode");
            fns[2] = api.get("prefix");
            fns[3] = api.get("makeHost");
            fns[4] = api.get("defineGlobals");
            fns[5] = api.get("defineGlobalValues");
            fns[6] = codec.get("protoCheck");
            fns[7] = api.get("trust");
            fns[8] = api.get("thrownClass");
        }
        for (JsValue v : new JsValue[] {codec, install, factories, names, sources}) {
            v.close();
        }
        return new Template(List.copyOf(key), route, rt, ctx, fns);
    }

    /**
     * Teaches the transport this engine's predefined atom numbers (binary path, docs/transport.md);
     * without them values whose keys are built-in names take the JSON codec.
     */
    private static void learnAtoms(JsContext ctx, JsValue codec) {
        try (JsValue probeFn = codec.get("atomProbe");
                JsResult probe = ctx.call(probeFn, ctx.undefined())) {
            if (!probe.isOk()) {
                return;
            }
            try (JsResult written = ctx.writeObject(probe.value())) {
                if (written.isOk()) {
                    Transport.learnAtoms(ctx.toByteArray(written.value()));
                }
            }
        }
    }

    private static JsValue trusted(RunExecution run, JsResult r) {
        if (!r.isOk()) {
            JsError err = r.error();
            r.close();
            throw run.setupFailure(err);
        }
        return r.orThrow();
    }
}
