package dev.sandjar.bridges.workspace;

import dev.sandjar.host.InvalidRequestException;

/**
 * Size caps for one workspace (one run). Immutable; each value is validated where it is set.
 *
 * <table>
 *   <caption>Limits</caption>
 *   <tr><th>Limit</th><th>Default</th><th>Ceiling</th><th>Error when hit</th></tr>
 *   <tr><td>{@code maxReadBytes}: one read</td><td>16 MiB</td><td>256 MiB</td><td>TOO_LARGE</td></tr>
 *   <tr><td>{@code maxWriteBytes}: one write</td><td>16 MiB</td><td>256 MiB</td><td>TOO_LARGE</td></tr>
 *   <tr><td>{@code maxCopyBytes}: bytes one copy produces</td><td>256 MiB</td><td>2 GiB</td>
 *       <td>TOO_LARGE</td></tr>
 *   <tr><td>{@code maxTotalReadBytes}: all reads of the run</td><td>256 MiB</td><td>2 GiB</td>
 *       <td>LIMIT</td></tr>
 *   <tr><td>{@code maxTotalWriteBytes}: all writes and copies of the run</td><td>256 MiB</td>
 *       <td>2 GiB</td><td>LIMIT</td></tr>
 *   <tr><td>{@code maxListEntries}: entries one list returns</td><td>10,000</td>
 *       <td>1,000,000</td><td>LIMIT</td></tr>
 *   <tr><td>{@code maxWorkspaceEntries}: files, directories and links the workspace holds</td>
 *       <td>10,000</td><td>1,000,000</td><td>QUOTA</td></tr>
 *   <tr><td>{@code maxWorkspaceBytes}: bytes of the files the workspace holds</td><td>1 GiB</td>
 *       <td>64 GiB</td><td>QUOTA</td></tr>
 * </table>
 *
 * <p>Zero is allowed and disables the operation (a zero write cap allows only empty writes; a zero
 * entry quota allows no new entry). The two quotas are about what the workspace holds, across runs
 * (see {@code Quota} for how it is measured); the others about what one run does.
 */
public final class WorkspaceLimits {
    private static final long MIB = 1L << 20;
    static final long FILE_BYTES_CEILING = 256 * MIB;
    static final long RUN_BYTES_CEILING = 2048 * MIB;
    static final int LIST_ENTRIES_CEILING = 1_000_000;
    static final long WORKSPACE_ENTRIES_CEILING = 1_000_000;
    static final long WORKSPACE_BYTES_CEILING = 64 * 1024 * MIB;

    private static final WorkspaceLimits DEFAULTS = builder().build();

    private final long maxReadBytes;
    private final long maxWriteBytes;
    private final long maxCopyBytes;
    private final long maxTotalReadBytes;
    private final long maxTotalWriteBytes;
    private final int maxListEntries;
    private final long maxWorkspaceEntries;
    private final long maxWorkspaceBytes;

    private WorkspaceLimits(Builder b) {
        this.maxReadBytes = b.maxReadBytes;
        this.maxWriteBytes = b.maxWriteBytes;
        this.maxCopyBytes = b.maxCopyBytes;
        this.maxTotalReadBytes = b.maxTotalReadBytes;
        this.maxTotalWriteBytes = b.maxTotalWriteBytes;
        this.maxListEntries = b.maxListEntries;
        this.maxWorkspaceEntries = b.maxWorkspaceEntries;
        this.maxWorkspaceBytes = b.maxWorkspaceBytes;
    }

    public static WorkspaceLimits defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public long maxReadBytes() {
        return maxReadBytes;
    }

    public long maxWriteBytes() {
        return maxWriteBytes;
    }

    public long maxCopyBytes() {
        return maxCopyBytes;
    }

    public long maxTotalReadBytes() {
        return maxTotalReadBytes;
    }

    public long maxTotalWriteBytes() {
        return maxTotalWriteBytes;
    }

    public int maxListEntries() {
        return maxListEntries;
    }

    /** Files, directories and links the whole workspace may hold (the root is not counted). */
    public long maxWorkspaceEntries() {
        return maxWorkspaceEntries;
    }

    /** Bytes the workspace's regular files may hold together. */
    public long maxWorkspaceBytes() {
        return maxWorkspaceBytes;
    }

    @Override
    public String toString() {
        return "WorkspaceLimits[maxReadBytes="
                + maxReadBytes
                + ", maxWriteBytes="
                + maxWriteBytes
                + ", maxCopyBytes="
                + maxCopyBytes
                + ", maxTotalReadBytes="
                + maxTotalReadBytes
                + ", maxTotalWriteBytes="
                + maxTotalWriteBytes
                + ", maxListEntries="
                + maxListEntries
                + ", maxWorkspaceEntries="
                + maxWorkspaceEntries
                + ", maxWorkspaceBytes="
                + maxWorkspaceBytes
                + "]";
    }

    public static final class Builder {
        private long maxReadBytes = 16 * MIB;
        private long maxWriteBytes = 16 * MIB;
        private long maxCopyBytes = 256 * MIB;
        private long maxTotalReadBytes = 256 * MIB;
        private long maxTotalWriteBytes = 256 * MIB;
        private int maxListEntries = 10_000;
        private long maxWorkspaceEntries = 10_000;
        private long maxWorkspaceBytes = 1024 * MIB;

        private Builder() {}

        public Builder withMaxReadBytes(long value) {
            maxReadBytes = checked("maxReadBytes", value, FILE_BYTES_CEILING);
            return this;
        }

        public Builder withMaxWriteBytes(long value) {
            maxWriteBytes = checked("maxWriteBytes", value, FILE_BYTES_CEILING);
            return this;
        }

        public Builder withMaxCopyBytes(long value) {
            maxCopyBytes = checked("maxCopyBytes", value, RUN_BYTES_CEILING);
            return this;
        }

        public Builder withMaxTotalReadBytes(long value) {
            maxTotalReadBytes = checked("maxTotalReadBytes", value, RUN_BYTES_CEILING);
            return this;
        }

        public Builder withMaxTotalWriteBytes(long value) {
            maxTotalWriteBytes = checked("maxTotalWriteBytes", value, RUN_BYTES_CEILING);
            return this;
        }

        public Builder withMaxListEntries(int value) {
            maxListEntries = (int) checked("maxListEntries", value, LIST_ENTRIES_CEILING);
            return this;
        }

        public Builder withMaxWorkspaceEntries(long value) {
            maxWorkspaceEntries = checked("maxWorkspaceEntries", value, WORKSPACE_ENTRIES_CEILING);
            return this;
        }

        public Builder withMaxWorkspaceBytes(long value) {
            maxWorkspaceBytes = checked("maxWorkspaceBytes", value, WORKSPACE_BYTES_CEILING);
            return this;
        }

        public WorkspaceLimits build() {
            return new WorkspaceLimits(this);
        }

        private static long checked(String name, long value, long ceiling) {
            if (value < 0 || value > ceiling) {
                throw new InvalidRequestException(
                        String.format("%s (%d) must be between 0 and %d", name, value, ceiling));
            }
            return value;
        }
    }
}
