package dev.sandjar.packs.internal.diff;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code diff} host module, declared by {@code @sandjar/diff}: line diffs of two texts. Its
 * limits are its own and sit here, between the guest and the algorithm: each text at most {@link
 * HostLimits#MAX_TEXT_CHARS} characters and {@link #MAX_LINES} lines, and at most {@link #MAX_WORK}
 * steps of the diff (a pair of texts that differ everywhere costs lines × edits). The work runs off
 * the engine thread and stops when the run ends.
 */
public final class DiffModule {
    static final String ID = "diff";
    static final String PACKAGE = "@sandjar/diff";

    /** Lines per text. */
    static final int MAX_LINES = 200_000;

    /** Steps of the Myers search per call (a few hundred milliseconds of CPU at most). */
    static final long MAX_WORK = 200_000_000L;

    /** Context lines a unified diff may ask for. */
    static final int MAX_CONTEXT = 1000;

    private DiffModule() {}

    /** The module, for {@code HostModules.builtIn()}. */
    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("Line diffs of two texts: change lists and unified patches")
                .export(
                        Operation.builder("diffLines")
                                .param(Param.string("a").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .param(Param.string("b").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .handler(DiffModule::diffLines)
                                .build())
                .export(
                        Operation.builder("unifiedDiff")
                                .param(Param.string("a").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .param(Param.string("b").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .param(Param.object("options").optional().maxLength(8))
                                .handler(DiffModule::unifiedDiff)
                                .build())
                .build();
    }

    private static Object diffLines(OperationCall call) {
        List<String> a = lines(call, 0);
        List<String> b = lines(call, 1);
        return HostWork.submit(
                call,
                w -> {
                    List<TextDiff.Run> runs = run(call, a, b, w);
                    List<Map<String, Object>> changes = new ArrayList<>(runs.size());
                    int x = 0;
                    int y = 0;
                    for (TextDiff.Run r : runs) {
                        StringBuilder value = new StringBuilder();
                        List<String> source = r.op() == TextDiff.Op.INSERT ? b : a;
                        int from = r.op() == TextDiff.Op.INSERT ? y : x;
                        for (int i = 0; i < r.count(); i++) {
                            value.append(source.get(from + i));
                        }
                        if (r.op() != TextDiff.Op.INSERT) {
                            x += r.count();
                        }
                        if (r.op() != TextDiff.Op.DELETE) {
                            y += r.count();
                        }
                        Map<String, Object> change = new LinkedHashMap<>();
                        change.put(
                                "op",
                                switch (r.op()) {
                                    case EQUAL -> "equal";
                                    case DELETE -> "remove";
                                    case INSERT -> "add";
                                });
                        change.put("value", value.toString());
                        change.put("count", (long) r.count());
                        changes.add(change);
                    }
                    return changes;
                });
    }

    private static Object unifiedDiff(OperationCall call) {
        List<String> a = lines(call, 0);
        List<String> b = lines(call, 1);
        Map<String, Object> options = call.arg(2) == null ? Map.of() : call.object(2);
        for (String key : options.keySet()) {
            if (!Set.of("context", "fromFile", "toFile").contains(key)) {
                throw invalid(
                        call, "options." + key + " is not an option (context, fromFile, toFile)");
            }
        }
        int context = context(call, options.get("context"));
        String from = fileName(call, options, "fromFile", "a");
        String to = fileName(call, options, "toFile", "b");
        return HostWork.submit(
                call, w -> TextDiff.unified(a, b, run(call, a, b, w), context, from, to));
    }

    private static List<TextDiff.Run> run(
            OperationCall call, List<String> a, List<String> b, HostWork.Work w) {
        try {
            return TextDiff.diff(a, b, MAX_WORK, w::isStopped);
        } catch (TextDiff.Stopped e) {
            throw new BridgeException(
                    "DiffError", "DIFF_TOO_COMPLEX", call.where() + ": " + e.getMessage());
        }
    }

    private static List<String> lines(OperationCall call, int arg) {
        return lines(call.where(), arg, call.string(arg));
    }

    static List<String> lines(String where, int arg, String text) {
        List<String> lines = TextDiff.lines(text);
        if (lines.size() > MAX_LINES) {
            throw new BridgeException(
                    "RangeError",
                    "INPUT_TOO_LARGE",
                    where
                            + ": argument "
                            + (arg + 1)
                            + " has "
                            + lines.size()
                            + " lines; at most "
                            + MAX_LINES);
        }
        return lines;
    }

    private static int context(OperationCall call, Object value) {
        if (value == null) {
            return 3;
        }
        if (value instanceof Long l && l >= 0 && l <= MAX_CONTEXT) {
            return l.intValue();
        }
        if (value instanceof Double d && d == Math.rint(d) && d >= 0 && d <= MAX_CONTEXT) {
            return d.intValue();
        }
        throw invalid(call, "options.context must be an integer from 0 to " + MAX_CONTEXT);
    }

    private static String fileName(
            OperationCall call, Map<String, Object> options, String key, String fallback) {
        Object v = options.get(key);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof String s)
                || s.isEmpty()
                || s.length() > 256
                || s.indexOf('\n') >= 0
                || s.indexOf('\r') >= 0) {
            throw invalid(call, "options." + key + " must be a one-line string of 1 to 256 chars");
        }
        return s;
    }

    private static BridgeException invalid(OperationCall call, String message) {
        return BridgeException.invalidArgument(call.where() + ": " + message);
    }
}
