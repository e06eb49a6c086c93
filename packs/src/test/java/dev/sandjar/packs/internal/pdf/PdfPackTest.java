package dev.sandjar.packs.internal.pdf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.common.PDStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/pdf} through {@code Sandbox.run}, with documents too big to read. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PdfPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void createsAndReadsBack() {
        Object v =
                packs.value(
                        "import pdf, { info, text } from '@sandjar/pdf';\n"
                                + "const doc = await pdf.create(['Hello PDF\\nSecond line', 'Page"
                                + " two — 42 €, 日本'], { title: 'Report', author: 'Ada' });\n"
                                + "const long = await pdf.create('word '.repeat(20000), {"
                                + " pageSize: 'Letter', fontSize: 12 });\n"
                                + "const about = await info(doc);\n"
                                + "const longInfo = await info(long);\n"
                                + "return [String.fromCharCode(...doc.slice(0, 5)), about.pages,"
                                + " about.metadata.title, about.metadata.author,"
                                + " about.pageSize.map(Math.round), await text(doc),\n"
                                + "  longInfo.pages, longInfo.pageSize, (await text(long, { from:"
                                + " 2, to: 2 }))[0].slice(0, 9)];");
        assertEquals(
                List.of(
                        "%PDF-",
                        2L,
                        "Report",
                        "Ada",
                        List.of(595L, 842L),
                        List.of("Hello PDF\nSecond line", "Page two — 42 €, ??"),
                        30L,
                        List.of(612L, 792L),
                        "word word"),
                v);
    }

    /**
     * One real page, then {@code tree} edits the page tree's root (PDFBox's COS objects): the
     * result is a small PDF whose tree is whatever the edit made it.
     */
    private static byte[] pageTree(java.util.function.Consumer<COSDictionary> tree)
            throws IOException {
        try (PDDocument doc = new PDDocument()) {
            doc.addPage(new PDPage());
            tree.accept(doc.getPages().getCOSObject());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out);
            return out.toByteArray();
        }
    }

    private static COSDictionary pagesNode(COSDictionary... kids) {
        COSDictionary node = new COSDictionary();
        node.setItem(COSName.TYPE, COSName.PAGES);
        COSArray array = new COSArray();
        for (COSDictionary k : kids) {
            array.add(k);
        }
        node.setItem(COSName.KIDS, array);
        node.setInt(COSName.COUNT, kids.length);
        return node;
    }

    /**
     * A page tree is a tree: a node that is its own ancestor, a node listed twice, and a /Count
     * that is not the number of pages below are each refused, saying which, before PDFBox walks it.
     */
    @Test
    void aPageTreeThatIsNotATreeIsRefusedSayingWhy() throws IOException {
        byte[] self =
                pageTree(
                        root -> {
                            root.getCOSArray(COSName.KIDS).add(root);
                            root.setInt(COSName.COUNT, 2);
                        });
        byte[] loop =
                pageTree(
                        root -> {
                            COSDictionary inner = pagesNode(root);
                            root.getCOSArray(COSName.KIDS).add(inner);
                            root.setInt(COSName.COUNT, 2);
                        });
        byte[] twice =
                pageTree(
                        root -> {
                            COSArray kids = root.getCOSArray(COSName.KIDS);
                            COSDictionary shared = pagesNode(new PDPage().getCOSObject());
                            kids.add(shared);
                            kids.add(shared);
                            root.setInt(COSName.COUNT, 3);
                        });
        byte[] miscounted = pageTree(root -> root.setInt(COSName.COUNT, 5));
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import pdf from '@sandjar/pdf';\n"
                                + "return [await failure(pdf.text(inputs.self)),\n"
                                + "  await failure(pdf.info(inputs.loop)),\n"
                                + "  await failure(pdf.text(inputs.loop)),\n"
                                + "  await failure(pdf.text(inputs.twice)),\n"
                                + "  await failure(pdf.text(inputs.miscounted))];",
                        Map.of(
                                "inputs",
                                Map.of(
                                        "self",
                                        self,
                                        "loop",
                                        loop,
                                        "twice",
                                        twice,
                                        "miscounted",
                                        miscounted)));
        String w = "packs.host.pdf.";
        String cycle = ": the PDF's page tree has a cycle (a node is its own ancestor)";
        assertEquals(
                List.of(
                        List.of("PdfError", "PDF_MALFORMED", w + "text" + cycle),
                        List.of("PdfError", "PDF_MALFORMED", w + "info" + cycle),
                        List.of("PdfError", "PDF_MALFORMED", w + "text" + cycle),
                        List.of(
                                "PdfError",
                                "PDF_MALFORMED",
                                w + "text: the PDF's page tree lists one node twice"),
                        List.of(
                                "PdfError",
                                "PDF_MALFORMED",
                                w
                                        + "text: the PDF's page tree says it holds 5 pages; it"
                                        + " holds 1")),
                v);
    }

    @Test
    void thousandsOfPagesAndAContentBombAreRefused() throws IOException {
        byte[] manyPages;
        try (PDDocument doc = new PDDocument()) {
            for (int i = 0; i < 3000; i++) {
                doc.addPage(new PDPage());
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out);
            manyPages = out.toByteArray();
        }
        byte[] bomb;
        try (PDDocument doc = new PDDocument()) {
            PDPage page = new PDPage();
            PDStream content = new PDStream(doc);
            byte[] spaces = new byte[1 << 20];
            java.util.Arrays.fill(spaces, (byte) ' ');
            try (OutputStream out = content.createOutputStream(COSName.FLATE_DECODE)) {
                for (int i = 0; i < 70; i++) {
                    out.write(spaces);
                }
            }
            page.setContents(content);
            doc.addPage(page);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out);
            bomb = out.toByteArray();
        }
        assertTrue(bomb.length < 1_000_000, "bomb is " + bomb.length + " bytes");
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import pdf from '@sandjar/pdf';\n"
                                + "return [await failure(pdf.info(inputs.many)), await"
                                + " failure(pdf.text(inputs.bomb)),\n"
                                + "  (await pdf.info(inputs.bomb)).pages,\n"
                                + "  await failure(pdf.create(Array(2001).fill('x'))),\n"
                                + "  await failure(pdf.create('\\n'.repeat(120000))),\n"
                                + "  (await failure(pdf.text(new Uint8Array([1, 2, 3])))).slice(0,"
                                + " 2)];",
                        Map.of("inputs", Map.of("many", manyPages, "bomb", bomb)));
        String w = "packs.host.pdf.";
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w + "info: the PDF has 3000 pages; at most 2000"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w
                                        + "text: the pages' content decodes to more than 67108864"
                                        + " bytes"),
                        1L,
                        List.of(
                                "TypeError",
                                "INVALID_ARGUMENT",
                                w
                                        + "create: content must be a string or an array of at most"
                                        + " 2000 page strings"),
                        List.of(
                                "RangeError",
                                "OUTPUT_TOO_LARGE",
                                w + "create: the text needs more than 2000 pages"),
                        List.of("PdfError", "PDF_MALFORMED")),
                v);
    }

    /** A page's content stream as PDF bytes. */
    static byte[] pageWith(byte[] contents) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            PDPage page = new PDPage();
            PDStream content = new PDStream(doc);
            try (OutputStream out = content.createOutputStream(COSName.FLATE_DECODE)) {
                out.write(contents);
            }
            page.setContents(content);
            doc.addPage(page);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out);
            return out.toByteArray();
        }
    }

    /**
     * The review's 31 KB PDF of 16 M {@code q} operators, at small size: every {@code q} copies the
     * graphics state, so its depth is bounded by name long before the heap; and a page of more
     * operators than a call may read is refused by name.
     */
    @Test
    void graphicsStateNestingAndOperatorCountsAreBounded() throws IOException {
        byte[] nested = pageWith("q ".repeat(PdfModule.MAX_STATE_DEPTH + 1).getBytes());
        byte[] many = pageWith("n ".repeat((int) PdfModule.MAX_OPERATORS + 1).getBytes());
        assertTrue(many.length < 200_000, "the page is " + many.length + " bytes");
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import { text } from '@sandjar/pdf';\n"
                                + "return [await failure(text(inputs.nested)),"
                                + " await failure(text(inputs.many)),"
                                + " await text(inputs.fine)];",
                        Map.of(
                                "inputs",
                                Map.of(
                                        "nested",
                                        nested,
                                        "many",
                                        many,
                                        "fine",
                                        pageWith("q q Q Q".getBytes()))));
        String w = "packs.host.pdf.text: ";
        assertEquals(
                List.of(
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w
                                        + "a page saves its graphics state (q) more than 256 levels"
                                        + " deep"),
                        List.of(
                                "RangeError",
                                "INPUT_TOO_LARGE",
                                w + "the pages hold more than 4000000 content operators"),
                        List.of("")),
                v);
    }
}
