package dev.sandjar.quickjs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Host functions by integer id, as QuickJS's function objects refer to them. An entry is dropped
 * when QuickJS frees the function object ({@code freeHostRef}). Each call is checked against the
 * context the function was made in. Engine thread only.
 */
final class HostRefTable {
    record Entry(JsContext context, HostFunction fn) {}

    private final Map<Integer, Entry> entries = new HashMap<>();
    private int nextId = 1;

    int add(JsContext context, HostFunction fn) {
        while (entries.containsKey(nextId) || nextId == 0) {
            nextId++;
        }
        int id = nextId++;
        entries.put(id, new Entry(context, fn));
        return id;
    }

    void free(int id) {
        entries.remove(id);
    }

    int size() {
        return entries.size();
    }

    /** The table's state, for an engine snapshot. */
    record Saved(Map<Integer, Entry> entries, int nextId) {}

    Saved save() {
        return new Saved(Map.copyOf(entries), nextId);
    }

    void restore(Saved s) {
        entries.clear();
        entries.putAll(s.entries());
        nextId = s.nextId();
    }

    /** Calls the host function; returns an owned JSValue* (possibly the exception marker). */
    int callFunction(QuickJsEngine engine, int ctx, int thisPtr, int argc, int argv, int id) {
        Entry entry = entries.get(id);
        JsContext context = engine.contexts.get(ctx);
        if (context == null) {
            throw engine.markBroken(
                    "host function " + id + " called from an unknown context", null);
        }
        if (!context.isAlive()) {
            // A job queued before the host closed this context still runs; refuse it in the guest.
            return context.rawThrow(ctx);
        }
        if (entry == null || entry.context() != context) {
            return context.throwError("Error", "host function " + id + " is not available here");
        }
        Ffi ffi = engine.ffi();
        List<JsValue> args = new ArrayList<>(argc);
        JsValue self = JsValue.borrowed(context, thisPtr);
        engine.callbackDepth++;
        try {
            for (int i = 0; i < argc; i++) {
                args.add(JsValue.borrowed(context, ffi.call(ffi.argvGet, argv, i)));
            }
            String thrownName;
            String thrownMessage;
            Map<String, String> thrownProperties = Map.of();
            try {
                JsValue result = entry.fn().call(context, self, List.copyOf(args));
                return result == null ? 0 : context.consume(result);
            } catch (JsException e) {
                thrownName = e.error().name();
                thrownMessage = e.error().message();
                thrownProperties = e.properties();
            } catch (EngineFailureException | VirtualMachineError e) {
                throw e;
            } catch (com.dylibso.chicory.wasm.ChicoryException e) {
                // A trap or "call stack exhausted" below this host function: the engine is unsafe.
                throw engine.markBroken(
                        "the engine trapped inside a host function: " + e.getMessage(), e);
            } catch (RuntimeException | Error e) {
                thrownName = "Error";
                thrownMessage =
                        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            }
            return context.throwError(thrownName, thrownMessage, thrownProperties);
        } finally {
            engine.callbackDepth--;
            self.invalidate();
            for (JsValue a : args) {
                a.invalidate();
            }
        }
    }
}
