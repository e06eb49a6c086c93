package dev.sandjar.bridges.workspace;

/**
 * One entry of {@link Workspace#list}: its name (one path component), its type and the size the
 * platform reports for it (the byte length for files).
 */
public record Entry(String name, EntryType type, long size) {}
