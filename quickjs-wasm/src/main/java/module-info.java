/**
 * The engine: QuickJS-ng compiled to WebAssembly and AOT-compiled to JVM bytecode, its Java FFI,
 * engine threads and the instance pool (docs/engine.md).
 *
 * <p>Its API hands out raw handles whose ownership rules the sandbox core keeps, so it is exported
 * to the sandbox core alone; everyone else reaches the engine through {@code dev.sandjar.host}.
 * {@code dev.sandjar.quickjs.internal} (the glue reader and the generated machine classes) is
 * exported to nobody.
 */
// The qualified export names a module built after this one, which javac warns of (lint "module").
@SuppressWarnings("module")
module dev.sandjar.quickjs {
    requires com.dylibso.chicory.runtime;
    requires com.dylibso.chicory.wasm;
    requires java.logging;
    requires java.management;
    requires jdk.unsupported;

    exports dev.sandjar.quickjs to
            dev.sandjar.host;
}
