/**
 * The standard capabilities: console, fetch, workspace, secrets, sleep, crypto, format, progress,
 * the guest helpers (docs/bridges.md), and the Code node (docs/code-node.md). Each capability is
 * one exported package; {@code dev.sandjar.bridges.internal} (argument checks and guest script
 * loading shared by the bridges) is exported to nobody.
 */
module dev.sandjar.bridges {
    requires transitive dev.sandjar.host;
    requires com.ibm.icu; // an automatic module: ICU4J ships only an Automatic-Module-Name
    requires java.net.http;
    requires java.logging;
    requires java.management;
    requires java.desktop; // ImageIO and Java2D for image and canvas

    exports dev.sandjar.bridges;
    exports dev.sandjar.bridges.audio;
    exports dev.sandjar.bridges.canvas;
    exports dev.sandjar.bridges.console;
    exports dev.sandjar.bridges.crypto;
    exports dev.sandjar.bridges.fetch;
    exports dev.sandjar.bridges.format;
    exports dev.sandjar.bridges.helpers;
    exports dev.sandjar.bridges.image;
    exports dev.sandjar.bridges.media;
    exports dev.sandjar.bridges.node;
    exports dev.sandjar.bridges.progress;
    exports dev.sandjar.bridges.secrets;
    exports dev.sandjar.bridges.time;
    exports dev.sandjar.bridges.video;
    exports dev.sandjar.bridges.workspace;
}
