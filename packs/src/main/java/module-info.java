/**
 * Sandbox packs: manifests, discovery, the module catalog and its delivery, the enforcing loader,
 * host and WASM modules behind generated facades, the shipped packs (docs/packs.md), and the remote
 * catalog that resolves imports against a Sandjar server (docs/runners.md). {@code
 * dev.sandjar.packs} is the API; the host modules' implementations live in {@code
 * dev.sandjar.packs.internal.*}, exported to nobody.
 */
module dev.sandjar.packs {
    requires transitive dev.sandjar.host;
    requires com.dylibso.chicory.runtime;
    requires com.dylibso.chicory.wasm;
    requires com.fasterxml.jackson.databind;
    requires java.logging;
    requires java.management;
    // The remote catalog reads a Sandjar server with the JDK's HTTP client (its builder takes one).
    requires transitive java.net.http;
    requires java.xml;
    requires org.apache.commons.csv;
    requires org.jsoup;
    requires org.apache.pdfbox;
    requires org.apache.pdfbox.io;
    // JTokkit's jar names no module: its automatic name comes from the file name.
    requires jtokkit;
    requires com.drew.metadata;

    exports dev.sandjar.packs;
    // The npm compiler, for the command line's 'packs compile' (the server module).
    exports dev.sandjar.packs.compile;
}
