package dev.sandjar.bridges.workspace;

/** The kind of a directory entry, as the entry itself is (links are reported, not followed). */
public enum EntryType {
    FILE,
    DIRECTORY,
    SYMLINK,
    /** A FIFO, socket or device. */
    OTHER
}
