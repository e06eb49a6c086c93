package dev.sandjar.packs.internal.html;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/html} through {@code Sandbox.run}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HtmlPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    static final String PAGE =
            "<html><head><title>T</title><style>p{}</style></head><body>"
                    + "<h2 id=x>Prices <small>today</small></h2>"
                    + "<p>Buy <a href='/buy?id=1'>now</a>, <em>really</em> <code>fast_x</code>."
                    + "<br>Second line</p>"
                    + "<ul><li>one</li><li>two<ol start=3><li>three</li></ol></li></ul>"
                    + "<blockquote><p>quoted</p></blockquote>"
                    + "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>x|y</td></tr></table>"
                    + "<pre><code class='language-js'>let a = 1;\n</code></pre>"
                    + "<script>alert(1)</script><img src='i.png' alt='pic'></body></html>";

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void selectsTextAttributesAndMarkdown() {
        Object v =
                packs.value(
                        "import html, { select } from '@sandjar/html';\n"
                                + "const found = await select(inputs.page, 'h2#x, td');\n"
                                + "return [found.map((e) => [e.tag, e.text, e.attributes]),\n"
                                + "  await html.attr(inputs.page, 'a', 'abs:href', { baseUrl:"
                                + " 'https://shop.example/p/' }),\n"
                                + "  await html.text('<p>a <b>b</b></p>'),\n"
                                + "  (await select(new Uint8Array([0x3c, 0x69, 0x3e, 0x69, 0x3c,"
                                + " 0x2f, 0x69, 0x3e]), 'i'))[0].html,\n"
                                + "  await html.toMarkdown(inputs.page)];",
                        Map.of("inputs", Map.of("page", PAGE)));
        assertEquals(
                List.of(
                        List.of(
                                List.of("h2", "Prices today", Map.of("id", "x")),
                                List.of("td", "1", Map.of()),
                                List.of("td", "x|y", Map.of())),
                        List.of("https://shop.example/buy?id=1"),
                        "a b",
                        "<i>i</i>",
                        "## Prices today\n\n"
                                + "Buy [now](/buy?id=1), *really* `fast_x`.  \nSecond line\n\n"
                                + "- one\n- two\n  3. three\n\n"
                                + "> quoted\n\n"
                                + "| a | b |\n| --- | --- |\n| 1 | x\\|y |\n\n"
                                + "```js\nlet a = 1;\n```\n\n"
                                + "![pic](i.png)\n"),
                v);
    }

    @Test
    void boundsAndBadSelectors() {
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import html from '@sandjar/html';\n"
                                + "const deep = '<div>'.repeat(20000) + 'deep' +"
                                + " '</div>'.repeat(20000);\n"
                                + "return [await failure(html.select('<p>', 'p[')),\n"
                                + "  await failure(html.text('x'.repeat(5 * (1 << 20) + 1))),\n"
                                + "  await failure(html.toMarkdown('*'.repeat(3 * (1 << 20)))),\n"
                                + "  await failure(html.select('<p>', 'p', { limit: 10001 })),\n"
                                + "  await html.text(deep),\n"
                                + "  (await html.select('<b>1</b>'.repeat(5), 'b', { limit: 2"
                                + " })).length];");
        @SuppressWarnings("unchecked")
        List<Object> r = (List<Object>) v;
        assertEquals(List.of("TypeError", "INVALID_ARGUMENT"), ((List<?>) r.get(0)).subList(0, 2));
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                "packs.host.html.text: html is 5242881 characters; at most"
                                        + " 5242880"),
                        List.of(
                                "RangeError",
                                "OUTPUT_TOO_LARGE",
                                "packs.host.html.toMarkdown: the Markdown is longer than 5242880"
                                        + " characters"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                "packs.host.html.select: options.limit must be an integer from 1"
                                        + " to 10000"),
                        "deep",
                        2L),
                r.subList(1, r.size()));
    }
}
