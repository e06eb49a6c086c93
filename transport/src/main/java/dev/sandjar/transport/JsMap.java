package dev.sandjar.transport;

import java.util.LinkedHashMap;

/** A JavaScript {@code Map} (keys of any type, insertion order), as opposed to a plain object. */
public final class JsMap extends LinkedHashMap<Object, Object> {
    private static final long serialVersionUID = 1L;

    /** An empty map; a caller builds one to hand the guest a {@code Map}. */
    public JsMap() {}
}
