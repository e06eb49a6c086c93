package dev.sandjar.packs.internal.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingResult;
import com.knuddels.jtokkit.api.IntArrayList;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code tokens} host module, declared by {@code @sandjar/tokens}: counting, encoding and
 * decoding text with OpenAI's byte-pair encodings through JTokkit ({@code r50k_base}, {@code
 * p50k_base}, {@code p50k_edit}, {@code cl100k_base}, {@code o200k_base}; or by model name).
 * Special tokens such as {@code <|endoftext|>} are encoded as ordinary text. Caps: text at most
 * {@link HostLimits#MAX_TEXT_CHARS}; at most {@link #MAX_TOKENS} tokens encoded or decoded per
 * call.
 */
public final class TokensModule {
    static final String ID = "tokens";
    static final String PACKAGE = "@sandjar/tokens";

    static final int MAX_TOKENS = 1_000_000;
    static final List<String> ENCODINGS =
            List.of("r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base");

    /** Encodings load on first use (the larger ones take a moment and several MiB). */
    private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private TokensModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("Token counts, encode and decode for OpenAI encodings (JTokkit)")
                .export(
                        Operation.builder("count")
                                .param(Param.string("text").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .param(Param.object("options").optional().maxLength(2))
                                .handler(TokensModule::count)
                                .build())
                .export(
                        Operation.builder("encode")
                                .param(Param.string("text").maxLength(HostLimits.MAX_TEXT_CHARS))
                                .param(Param.object("options").optional().maxLength(2))
                                .handler(TokensModule::encode)
                                .build())
                .export(
                        Operation.builder("decode")
                                .param(Param.array("tokens").maxLength(MAX_TOKENS))
                                .param(Param.object("options").optional().maxLength(2))
                                .handler(TokensModule::decode)
                                .build())
                .build();
    }

    /**
     * The encoding named by {@code options.encoding} or {@code options.model}; cl100k_base else.
     */
    private static Encoding encoding(OperationCall call, int arg) {
        HostArgs.Options o = HostArgs.options(call, arg, "encoding", "model");
        if (o.has("encoding") && o.has("model")) {
            throw HostWork.invalid(
                    call.where(), "give options.encoding or options.model, not both");
        }
        if (o.has("model")) {
            String model = o.string("model", null, 128);
            return REGISTRY.getEncodingForModel(model)
                    .orElseThrow(
                            () ->
                                    HostWork.invalid(
                                            call.where(),
                                            "options.model '"
                                                    + model
                                                    + "' is not a model JTokkit knows"));
        }
        String name = o.choice("encoding", "cl100k_base", ENCODINGS);
        return REGISTRY.getEncoding(name).orElseThrow();
    }

    private static Object count(OperationCall call) {
        String text = call.string(0);
        Encoding enc = encoding(call, 1);
        return HostWork.submit(call, w -> (long) enc.countTokensOrdinary(text));
    }

    private static Object encode(OperationCall call) {
        String text = call.string(0);
        Encoding enc = encoding(call, 1);
        return HostWork.submit(
                call,
                w -> {
                    EncodingResult r = enc.encodeOrdinary(text, MAX_TOKENS);
                    if (r.isTruncated()) {
                        throw new BridgeException(
                                "RangeError",
                                "OUTPUT_TOO_LARGE",
                                w.where() + ": the text is more than " + MAX_TOKENS + " tokens");
                    }
                    IntArrayList tokens = r.getTokens();
                    w.output(tokens.size() * 8L);
                    List<Long> out = new ArrayList<>(tokens.size());
                    for (int i = 0; i < tokens.size(); i++) {
                        out.add((long) tokens.get(i));
                    }
                    return out;
                });
    }

    private static Object decode(OperationCall call) {
        List<Object> tokens = call.array(0);
        Encoding enc = encoding(call, 1);
        IntArrayList ids = new IntArrayList(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            Object t = tokens.get(i);
            long v;
            if (t instanceof Long l) {
                v = l;
            } else if (t instanceof Double d && d == Math.rint(d)) {
                v = d.longValue();
            } else {
                v = -1;
            }
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw HostWork.invalid(call.where(), "tokens[" + i + "] must be a token id");
            }
            ids.add((int) v);
        }
        return HostWork.submit(
                call,
                w -> {
                    String text;
                    try {
                        text = enc.decode(ids);
                    } catch (IllegalArgumentException
                            | ArrayIndexOutOfBoundsException
                            | NullPointerException e) {
                        throw HostWork.invalid(w.where(), "a token id is not in " + enc.getName());
                    }
                    w.output(text.length());
                    return text;
                });
    }
}
