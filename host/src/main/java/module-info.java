/**
 * The sandbox core: {@code Sandbox}, run requests and results, limits, the bridge SPI, module
 * resolution and the exception root (docs/sandbox.md). Its one exported package is the API every
 * caller, bridge and pack uses; the classes behind it are package-private.
 */
module dev.sandjar.host {
    requires transitive dev.sandjar.transport; // the values RunResult and OperationCall hold
    requires transitive com.fasterxml.jackson.core; // RunResult.valueAs(TypeReference)
    requires dev.sandjar.quickjs;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires java.logging;
    requires java.management;
    requires jdk.management; // per-thread allocated bytes, for the host meter
    requires transitive java.scripting; // the JSR-223 engine's types

    exports dev.sandjar.host;
    exports dev.sandjar.host.script;

    provides javax.script.ScriptEngineFactory with
            dev.sandjar.host.script.SandjarScriptEngineFactory;
}
