package dev.sandjar.packs.internal.docx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/docx} through {@code Sandbox.run}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DocxPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    static byte[] document(String body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.putNextEntry(new ZipEntry("word/document.xml"));
            zip.write(
                    (body.startsWith("<!")
                                    ? body
                                    : "<w:document"
                                          + " xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>"
                                            + body
                                            + "</w:body></w:document>")
                            .getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        return out.toByteArray();
    }

    @Test
    void readsWordsLayoutAndWritesADocument() throws IOException {
        byte[] word =
                document(
                        "<w:p><w:pPr><w:pStyle"
                            + " w:val=\"Heading1\"/></w:pPr><w:r><w:t>Plan</w:t></w:r></w:p><w:p><w:r><w:t"
                            + " xml:space=\"preserve\">a </w:t></w:r><w:del><w:r><w:delText>gone"
                            + "</w:delText></w:r></w:del><w:r><w:t>b</w:t><w:tab/><w:t>c</w:t><w:br/><w:t>d</w:t></w:r></w:p>"
                            + "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p><w:p><w:r><w:t>y</w:t></w:r></w:p></w:tc>"
                            + "<w:tc><w:p><w:r><w:t>z</w:t></w:r></w:p></w:tc></w:tr></w:tbl>");
        Object v =
                packs.value(
                        "import docx, { read, write } from '@sandjar/docx';\n"
                                + "const file = await write([{ text: 'Minutes', style: 'Title' },"
                                + " 'Present: Ada & Bo', 'tab\\there\\nnext line']);\n"
                                + "const mine = await read(file);\n"
                                + "const lines = await read(await docx.write('one\\ntwo'));\n"
                                + "return [mine, lines.text, await docx.read(inputs.word)];",
                        Map.of("inputs", Map.of("word", word)));
        assertEquals(
                List.of(
                        Map.of(
                                "text",
                                "Minutes\nPresent: Ada & Bo\ntab\there\nnext line",
                                "paragraphs",
                                List.of(
                                        Map.of("text", "Minutes", "style", "Title"),
                                        Map.of("text", "Present: Ada & Bo", "style", "Normal"),
                                        Map.of("text", "tab\there\nnext line", "style", "Normal"))),
                        "one\ntwo",
                        Map.of(
                                "text",
                                "Plan\na b\tc\nd\nx y\tz",
                                "paragraphs",
                                List.of(
                                        Map.of("text", "Plan", "style", "Heading1"),
                                        Map.of("text", "a b\tc\nd", "style", "Normal"),
                                        Map.of("text", "x y\tz", "style", "TableRow")))),
                v);
    }

    @Test
    void hostileDocumentsAndBadContentAreRefused() throws IOException {
        byte[] bomb = document("<w:p>" + " ".repeat(60 << 20) + "</w:p>");
        byte[] doctype =
                document("<!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><d>&x;</d>");
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import docx from '@sandjar/docx';\n"
                                + "return [await failure(docx.read(inputs.bomb)), await"
                                + " failure(docx.read(inputs.doctype)),\n"
                                + "  await failure(docx.write([{ text: 'x', style: 'Fancy' }])),\n"
                                + "  await failure(docx.read(new Uint8Array(30)))];",
                        Map.of("inputs", Map.of("bomb", bomb, "doctype", doctype)));
        String w = "packs.host.docx.";
        assertEquals(
                List.of(
                        List.of(
                                "ZipError",
                                "ZIP_BOMB",
                                w
                                        + "read: entry 'word/document.xml' inflates more than 200"
                                        + " times its compressed size"),
                        List.of(
                                "OfficeError",
                                "OFFICE_MALFORMED",
                                w + "read: word/document.xml line 1: a DOCTYPE is not allowed"),
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "write: paragraph 1 must be a string or { text, style }"
                                        + " with style one of Heading1, Heading2, Heading3, Normal,"
                                        + " Title"),
                        List.of(
                                "ZipError",
                                "ZIP_MALFORMED",
                                w
                                        + "read: not a ZIP archive (no end of central directory"
                                        + " record)")),
                v);
    }
}
