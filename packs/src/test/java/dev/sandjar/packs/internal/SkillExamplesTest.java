package dev.sandjar.packs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.PackDocs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example in each shipped host pack's SKILL.md runs as written and returns what its comment
 * says: the docs a model reads are the docs that work.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SkillExamplesTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    static final Pattern BLOCK = Pattern.compile("```js\\n(.*?)```", Pattern.DOTALL);

    /** Each host pack and what its example's {@code return} gives, as JSON. */
    static final Map<String, String> EXPECTED =
            Map.of(
                    "@sandjar/csv", "\"name,qty\\n\\\"Smith, Ann\\\",2\\nBo,5\\n\"",
                    "@sandjar/html",
                            "[[\"https://example.com/a\"],\"# News\\n"
                                    + "\\n"
                                    + "Read [this](/a) **now**.\\n"
                                    + "\"]",
                    "@sandjar/xml", "\"<order id=\\\"7\\\"><item sku=\\\"a\\\">2</item></order>\"",
                    "@sandjar/zip", "[[\"a.txt\",\"dir/b.bin\"],\"hello\"]",
                    "@sandjar/pdf", "[2,\"Report\",[\"Page one\",\"Page two\"]]",
                    "@sandjar/xlsx",
                            "{\"name\":\"Sales\",\"rows\":[[\"item\",\"qty\"],[\"tea\",3],[\"cake\",1.5]]}",
                    "@sandjar/docx",
                            "[\"Minutes\\n"
                                    + "Present: Ada, Bo\\n"
                                    + "Next: Friday\",{\"text\":\"Minutes\",\"style\":\"Title\"}]",
                    "@sandjar/tokens", "[2,[15339,1917],\"hello world\"]",
                    "@sandjar/exif", "[\"2\",\"1\",null]");

    @Test
    void everyHostPackExampleRunsAndReturnsWhatItSays() {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, String> e : EXPECTED.entrySet()) {
            PackDocs docs = packs.catalog().packDocs(e.getKey()).orElseThrow();
            Matcher m = BLOCK.matcher(docs.body());
            assertTrue(m.find(), e.getKey() + " has no js example");
            RunResult r = packs.run(m.group(1));
            if (!r.isOk()) {
                failures.add(e.getKey() + ": " + r.error());
            } else if (!e.getValue().equals(r.valueJson())) {
                failures.add(e.getKey() + ": returned " + r.valueJson());
            }
        }
        assertEquals(List.of(), failures);
    }
}
