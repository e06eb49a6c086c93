package dev.sandjar.bridges.workspace;

import static dev.sandjar.bridges.workspace.Errors.tooLarge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * Reads a whole file under {@code maxReadBytes} and the run's read total. The size the file reports
 * is checked before reading, and the read also stops at the cap, so a file that grows meanwhile is
 * never read past it.
 */
final class BoundedReader {
    private final Resolver resolver;
    private final WorkspaceLimits limits;
    private final Budget budget;

    BoundedReader(Resolver resolver, WorkspaceLimits limits, Budget budget) {
        this.resolver = resolver;
        this.limits = limits;
        this.budget = budget;
    }

    /** The bytes of the regular file at {@code raw} (never a link, directory or special file). */
    byte[] read(String op, String raw) throws IOException {
        try (Location loc = resolver.locate(op, raw)) {
            BasicFileAttributes attrs = resolver.existing(op, loc);
            resolver.requireFile(op, loc, attrs);
            long max = limits.maxReadBytes();
            if (attrs.size() > max) {
                throw tooLarge(op, loc.shown, loc.subject, attrs.size(), "maxReadBytes", max);
            }
            budget.ensureReadRoom(op, loc.shown, attrs.size());
            try (SeekableByteChannel in = resolver.openFile(op, loc, StandardOpenOption.READ)) {
                return readBounded(budget, op, loc.shown, loc.subject, in, max);
            }
        }
    }

    /**
     * Reads the whole channel, never holding more than {@code max} bytes: the buffer starts at the
     * size the file reports and grows (up to the cap) only if the file grew.
     */
    static byte[] readBounded(
            Budget budget,
            String op,
            String shown,
            String subject,
            SeekableByteChannel in,
            long max)
            throws IOException {
        long size = in.size();
        if (size > max) {
            throw tooLarge(op, shown, subject, size, "maxReadBytes", max);
        }
        byte[] buf = new byte[(int) size];
        ByteBuffer probe = ByteBuffer.allocate(1);
        int n = 0;
        while (true) {
            budget.checkCancelled(op, shown);
            if (n == buf.length) {
                probe.clear();
                if (in.read(probe) < 0) {
                    break;
                }
                if (n >= max) {
                    throw tooLarge(op, shown, subject, n + 1L, "maxReadBytes", max);
                }
                budget.chargeRead(op, shown, 1);
                buf = Arrays.copyOf(buf, (int) Math.min(max, Math.max(n + Budget.CHUNK, 2L * n)));
                buf[n++] = probe.get(0);
                continue;
            }
            int r = in.read(ByteBuffer.wrap(buf, n, Math.min(Budget.CHUNK, buf.length - n)));
            if (r < 0) {
                break;
            }
            budget.chargeRead(op, shown, r);
            n += r;
        }
        return n == buf.length ? buf : Arrays.copyOf(buf, n);
    }
}
