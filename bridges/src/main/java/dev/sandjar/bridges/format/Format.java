package dev.sandjar.bridges.format;

import dev.sandjar.bridges.internal.Args;
import dev.sandjar.bridges.internal.GuestScripts;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * {@code format.number}, {@code format.date}, {@code format.relativeTime} and {@code format.list}:
 * locale-aware formatting in the shape of {@code Intl.NumberFormat}, {@code DateTimeFormat}, {@code
 * RelativeTimeFormat} and {@code ListFormat}, backed by ICU4J (QuickJS ships no {@code Intl}). All
 * four return Promises of a string; ICU runs on the sandbox's executor, so its first-use data
 * loading never stalls the engine thread. The default locale is {@code en-US} and the default time
 * zone UTC, whatever the host's. A malformed locale, an unknown option or an option value outside
 * its choices rejects with a {@code RangeError} naming it. See {@code docs/bridges.md}.
 */
public final class Format {
    /** The most keys an options object may have. */
    static final int MAX_OPTION_KEYS = 32;

    /** The most items {@code format.list} takes. */
    public static final int MAX_LIST_ITEMS = 10_000;

    private static final Bridge BRIDGE =
            Bridge.builder("format")
                    .guest(GuestScripts.load(Format.class, "format.js"))
                    .operation(
                            withLocaleAndOptions(
                                            Operation.builder("number").param(Param.any("value")))
                                    .handler(async(Format::number))
                                    .build())
                    .operation(
                            withLocaleAndOptions(
                                            Operation.builder("date").param(Param.any("value")))
                                    .handler(async(Format::date))
                                    .build())
                    .operation(
                            withLocaleAndOptions(
                                            Operation.builder("relativeTime")
                                                    .param(Param.any("value"))
                                                    .param(Param.string("unit").maxLength(32)))
                                    .handler(async(Format::relativeTime))
                                    .build())
                    .operation(
                            withLocaleAndOptions(
                                            Operation.builder("list")
                                                    .param(
                                                            Param.array("items")
                                                                    .maxLength(MAX_LIST_ITEMS)))
                                    .handler(async(Format::list))
                                    .build())
                    .build();

    private Format() {}

    /** The format bridge; one immutable instance serves every run. */
    public static Bridge bridge() {
        return BRIDGE;
    }

    /** The trailing {@code locale?, options?} every format operation takes. */
    private static Operation.Builder withLocaleAndOptions(Operation.Builder op) {
        return op.param(Param.any("locale").optional())
                .param(Param.object("options").optional().maxLength(MAX_OPTION_KEYS));
    }

    private static String number(OperationCall c) {
        Options o = Options.of(NumberFormats.WHERE, c.object(2), NumberFormats.OPTIONS);
        return NumberFormats.format(c.arg(0), c.arg(1), o);
    }

    private static String date(OperationCall c) {
        Options o = Options.of(DateFormats.WHERE, c.object(2), DateFormats.OPTIONS);
        return DateFormats.format(c.arg(0), c.arg(1), o);
    }

    private static String relativeTime(OperationCall c) {
        Options o = Options.of(RelativeTimeFormats.WHERE, c.object(3), RelativeTimeFormats.OPTIONS);
        double value = Args.number(c.arg(0), RelativeTimeFormats.WHERE, "value");
        return RelativeTimeFormats.format(value, c.string(1), c.arg(2), o);
    }

    private static String list(OperationCall c) {
        Options o = Options.of(ListFormats.WHERE, c.object(2), ListFormats.OPTIONS);
        return ListFormats.format(c.array(0), c.arg(1), o);
    }

    /** Runs the formatting on the sandbox's executor; a BridgeException rejects the Promise. */
    private static Operation.Handler async(Function<OperationCall, String> work) {
        return call ->
                CompletableFuture.supplyAsync(() -> work.apply(call), call.session().executor());
    }
}
