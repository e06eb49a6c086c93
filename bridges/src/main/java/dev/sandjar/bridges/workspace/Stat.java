package dev.sandjar.bridges.workspace;

import java.time.Instant;

/** What {@link Workspace#stat} reports: type, size in bytes and last modification time. */
public record Stat(EntryType type, long size, Instant modified) {}
