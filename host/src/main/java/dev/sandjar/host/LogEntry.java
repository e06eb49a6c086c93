package dev.sandjar.host;

import java.time.Instant;
import java.util.Objects;

/**
 * One line of a run's log.
 *
 * @param level how the line was logged
 * @param message the text, as the guest's console formatted it
 * @param timestamp when the host received it
 * @param source who wrote it: {@code "guest"} for the guest's own logging, {@code "sandjar"} for
 *     notices from the sandbox itself (for example that the log was cut)
 */
public record LogEntry(Level level, String message, Instant timestamp, String source) {
    public enum Level {
        DEBUG,
        INFO,
        LOG,
        WARN,
        ERROR
    }

    public LogEntry {
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(source, "source");
    }

    @Override
    public String toString() {
        return "[" + level.name().toLowerCase(java.util.Locale.ROOT) + "] " + message;
    }
}
