package dev.sandjar.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the server logs while it is open: slf4j-simple (the tests' binding) writes each line to the
 * {@code System.err} of that moment, which this tees into a buffer. Closing puts the old stream
 * back.
 */
final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    LogCapture() {
        OutputStream tee =
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        synchronized (captured) {
                            captured.write(b);
                        }
                        original.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        synchronized (captured) {
                            captured.write(b, off, len);
                        }
                        original.write(b, off, len);
                    }
                };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
