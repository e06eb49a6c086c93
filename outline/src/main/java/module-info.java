/**
 * The build-time pass that moves cold code out of the huge methods Chicory generates for the engine
 * (docs/engine.md, "The outlining pass"). A build tool: its one entry point is {@link
 * dev.sandjar.outline.Outliner#main}.
 */
module dev.sandjar.outline {
    requires org.objectweb.asm;
    requires org.objectweb.asm.tree;
    requires org.objectweb.asm.tree.analysis;

    exports dev.sandjar.outline;
}
