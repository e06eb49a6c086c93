package dev.sandjar.packs.internal.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/tokens} through {@code Sandbox.run}, with tiktoken's known answers. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TokensPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void countsEncodesAndDecodes() {
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import tokens, { count, encode, decode } from"
                                + " '@sandjar/tokens';\n"
                                + "const ids = await encode('hello world');\n"
                                + "return [ids, await decode(ids), await count('hello world', {"
                                + " model: 'gpt-4o' }),\n"
                                + "  await tokens.encode('hello world', { encoding: 'o200k_base'"
                                + " }),\n"
                                + "  await tokens.encode('hello world', { encoding: 'r50k_base'"
                                + " }),\n"
                                + "  await count('<|endoftext|>'),\n"
                                + "  await failure(count('x', { encoding: 'nope' })),\n"
                                + "  await failure(count('x', { model: 'not-a-model' })),\n"
                                + "  await failure(decode([-1])),\n"
                                + "  await failure(encode('a '.repeat(1000001)))];");
        String w = "packs.host.tokens.";
        assertEquals(
                List.of(
                        List.of(15339L, 1917L),
                        "hello world",
                        2L,
                        List.of(24912L, 2375L),
                        List.of(31373L, 995L),
                        7L,
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "count: options.encoding must be one of r50k_base,"
                                        + " p50k_base, p50k_edit, cl100k_base, o200k_base"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "count: options.model 'not-a-model' is not a model"
                                        + " JTokkit knows"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w + "decode: tokens[0] must be a token id"),
                        List.of(
                                "RangeError",
                                "OUTPUT_TOO_LARGE",
                                w + "encode: the text is more than 1000000 tokens")),
                v);
    }
}
