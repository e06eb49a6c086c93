package dev.sandjar.host;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * A run's log, capped by lines and characters. When a line would pass a cap, the log is cut: one
 * notice line says so, later lines are counted, not kept, and the notice ends up naming how much
 * was dropped. A listener sees each kept line (and the notice) as it is added. Each line is masked
 * ({@link Redactions}) as it is added, before it is counted or a listener sees it, and the whole
 * log again when it is read, for values added after a line that held them. Thread-safe.
 */
final class LogCollector {
    private static final Logger LOG = Logger.getLogger(LogCollector.class.getName());

    private final int maxLines;
    private final long maxChars;
    private final Consumer<LogEntry> listener;
    private final Redactions redactions;
    private final List<LogEntry> entries = new ArrayList<>();
    private long chars;
    private int noticeIndex = -1;
    private long droppedLines;
    private long droppedChars;

    LogCollector(int maxLines, long maxChars, Consumer<LogEntry> listener, Redactions redactions) {
        this.maxLines = maxLines;
        this.maxChars = maxChars;
        this.listener = listener;
        this.redactions = redactions;
    }

    void add(LogEntry.Level level, String raw, String source) {
        String message = redactions.apply(raw);
        LogEntry entry;
        synchronized (this) {
            if (noticeIndex >= 0) {
                droppedLines++;
                droppedChars += message.length();
                return;
            }
            if (entries.size() < maxLines && chars + message.length() <= maxChars) {
                chars += message.length();
                entry = new LogEntry(level, message, Instant.now(), source);
                entries.add(entry);
            } else {
                droppedLines = 1;
                droppedChars = message.length();
                noticeIndex = entries.size();
                entry = notice();
                entries.add(entry);
            }
        }
        if (listener != null) {
            try {
                listener.accept(entry);
            } catch (RuntimeException e) {
                LOG.warning("a run's log listener threw: " + e);
            }
        }
    }

    private LogEntry notice() {
        return new LogEntry(
                LogEntry.Level.WARN,
                "[sandjar] the log was cut here: "
                        + droppedLines
                        + " line(s) of "
                        + droppedChars
                        + " characters were dropped (the limits are logLines "
                        + maxLines
                        + " and logChars "
                        + maxChars
                        + ")",
                Instant.now(),
                "sandjar");
    }

    /** The log as it stands, with the notice's counts brought up to date. */
    synchronized List<LogEntry> entries() {
        if (noticeIndex >= 0) {
            entries.set(noticeIndex, notice());
        }
        List<LogEntry> out = new ArrayList<>(entries.size());
        for (LogEntry e : entries) {
            String masked = redactions.apply(e.message());
            out.add(
                    masked.equals(e.message())
                            ? e
                            : new LogEntry(e.level(), masked, e.timestamp(), e.source()));
        }
        return List.copyOf(out);
    }
}
