package dev.sandjar.packs.internal.zip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.packs.internal.HostPackRuns;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @sandjar/zip} through {@code Sandbox.run}, with zip bombs and unsafe names. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZipPackTest {
    @RegisterExtension
    static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1).preloadAnalyzer();

    static HostPackRuns packs;

    @BeforeAll
    static void start(Sandbox shared) {
        packs = new HostPackRuns(shared);
    }

    @Test
    void createsListsAndExtracts() throws IOException {
        byte[] theirs =
                deflated(
                        Map.of(
                                "dir/",
                                new byte[0],
                                "dir/x.txt",
                                "from java".getBytes(StandardCharsets.UTF_8)));
        Object v =
                packs.value(
                        "import zip, { list, extract, create } from '@sandjar/zip';\n"
                                + "const archive = await create([{ name: 'a.txt', data: 'héllo' },"
                                + " { name: 'd/', data: null }, { name: 'd/b.bin', data: new"
                                + " Uint8Array([1, 2, 255]) }]);\n"
                                + "const again = await create([{ name: 'a.txt', data: 'héllo' },"
                                + " { name: 'd/', data: null }, { name: 'd/b.bin', data: new"
                                + " Uint8Array([1, 2, 255]) }]);\n"
                                + "const entries = await list(archive);\n"
                                + "const out = await extract(archive);\n"
                                + "return [entries.map((e) => [e.name, e.directory, e.size]),\n"
                                + "  out.map((e) => [e.name, e.data instanceof Uint8Array ?"
                                + " Array.from(e.data) : e.data]),\n"
                                + "  (await zip.extract(archive, { names: ['a.txt'], text: true"
                                + " }))[0].data,\n"
                                + "  archive.length === again.length && archive.every((b, i) => b"
                                + " === again[i]),\n"
                                + "  (await zip.extract(inputs.theirs, { text: true })).map((e) =>"
                                + " e.name + '=' + e.data)];",
                        Map.of("inputs", Map.of("theirs", theirs)));
        assertEquals(
                List.of(
                        List.of(
                                List.of("a.txt", false, 6L),
                                List.of("d/", true, 0L),
                                List.of("d/b.bin", false, 3L)),
                        List.of(
                                List.of("a.txt", List.of(104L, 195L, 169L, 108L, 108L, 111L)),
                                List.of("d/b.bin", List.of(1L, 2L, 255L))),
                        "héllo",
                        true,
                        List.of("dir/x.txt=from java")),
                v);
    }

    @Test
    void aZipBombWithATinyCompressedSizeIsStoppedAtFiftyMegabytesInflated() throws IOException {
        // 60 MiB of zeros in two entries deflate to about 60 KiB; the declared sizes are honest,
        // the cap is on what is actually inflated.
        byte[] zeros = new byte[30 << 20];
        byte[] bomb = deflated(Map.of("a.bin", zeros, "b.bin", zeros));
        assertTrue(bomb.length < 100_000, "compressed " + bomb.length);
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import zip from '@sandjar/zip';\n"
                                + "const listed = await zip.list(inputs.bomb);\n"
                                + "return [listed.map((e) => e.size), await"
                                + " failure(zip.extract(inputs.bomb)),\n"
                                + "  (await zip.extract(inputs.bomb, { names: ['a.bin']"
                                + " }))[0].data.length];",
                        Map.of("inputs", Map.of("bomb", bomb)));
        assertEquals(
                List.of(
                        List.of(31457280L, 31457280L),
                        List.of(
                                "ZipError",
                                "ZIP_BOMB",
                                "packs.host.zip.extract: the archive inflates past 52428800 bytes"
                                        + " (the cap on bytes actually inflated)"),
                        31457280L),
                v);
    }

    @Test
    void aLyingSizeAnOverlappingBombAndUnsafeNamesAreRefused() throws IOException {
        // An entry that declares 5 bytes and inflates to a megabyte.
        byte[] liar = deflated(Map.of("x", new byte[1 << 20]));
        patchCentral(liar, "x", 24, 5);
        // Entry b's local header and data sit inside entry a's stored data.
        byte[] inner = local("b", "kernel".getBytes(StandardCharsets.UTF_8));
        byte[] outer = local("a", inner);
        byte[] overlap =
                archive(
                        outer,
                        central("a", 0, inner),
                        central("b", 30 + 1, "kernel".getBytes(StandardCharsets.UTF_8)));
        byte[] slip = deflated(Map.of("../../etc/cron.d/x", new byte[] {1}));
        byte[] absolute = deflated(Map.of("/etc/passwd", new byte[] {1}));
        byte[] twice = deflated(Map.of("a.txt", new byte[] {1}, "b.txt", new byte[] {2}));
        replace(twice, "b.txt", "a.txt");
        Object v =
                packs.value(
                        HostPackRuns.FAILURE
                                + "import zip from '@sandjar/zip';\n"
                                + "return [await failure(zip.extract(inputs.liar)),\n"
                                + "  await failure(zip.list(inputs.overlap)),\n"
                                + "  await failure(zip.list(inputs.slip)),\n"
                                + "  await failure(zip.list(inputs.absolute)),\n"
                                + "  await failure(zip.list(inputs.twice)),\n"
                                + "  await failure(zip.create([{ name: 'C:/x', data: '' }])),\n"
                                + "  await failure(zip.create([{ name: 'a', data: '' }, { name:"
                                + " 'a', data: '' }])),\n"
                                + "  await failure(zip.list(new Uint8Array(100)))];",
                        Map.of(
                                "inputs",
                                Map.of(
                                        "liar",
                                        liar,
                                        "overlap",
                                        overlap,
                                        "slip",
                                        slip,
                                        "absolute",
                                        absolute,
                                        "twice",
                                        twice)));
        String w = "packs.host.zip.";
        assertEquals(
                List.of(
                        List.of(
                                "ZipError",
                                "ZIP_MALFORMED",
                                w + "extract: entry 'x' inflates past its declared 5 bytes"),
                        List.of(
                                "ZipError",
                                "ZIP_BOMB",
                                w
                                        + "list: entries 'a' and 'b' overlap (an overlapping-entry"
                                        + " zip bomb?)"),
                        List.of(
                                "ZipError",
                                "ZIP_BAD_NAME",
                                w
                                        + "list: entry name '../../etc/cron.d/x' leaves the archive"
                                        + " (a '..' segment)"),
                        List.of(
                                "ZipError",
                                "ZIP_BAD_NAME",
                                w + "list: entry name '/etc/passwd' is absolute"),
                        List.of(
                                "ZipError",
                                "ZIP_BAD_NAME",
                                w + "list: entry 'a.txt' appears twice"),
                        List.of(
                                "ZipError",
                                "ZIP_BAD_NAME",
                                w + "create: entry name 'C:/x' starts with a drive letter"),
                        List.of("ZipError", "ZIP_BAD_NAME", w + "create: entry 'a' appears twice"),
                        List.of(
                                "ZipError",
                                "ZIP_MALFORMED",
                                w
                                        + "list: not a ZIP archive (no end of central directory"
                                        + " record)")),
                v);
    }

    /** Calls past the per-run concurrency cap wait their turn and all complete, in order. */
    @Test
    void manyCallsAtOnceQueueAndAllComplete() {
        Object v =
                packs.value(
                        "import zip from '@sandjar/zip';\n"
                                + "const made = await Promise.all(Array.from({ length: 30 }, (_, i)"
                                + " => zip.create([{ name: 'f' + i, data: 'x'.repeat(i) }])));\n"
                                + "const sizes = await Promise.all(made.map((z) => zip.list(z)));\n"
                                + "return sizes.map((l) => l[0].size).join(',');");
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            expected.append(i == 0 ? "" : ",").append(i);
        }
        assertEquals(expected.toString(), v);
    }

    static byte[] deflated(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            for (String name : new java.util.TreeSet<>(entries.keySet())) {
                zip.putNextEntry(new ZipEntry(name));
                zip.write(entries.get(name));
                zip.closeEntry();
            }
        }
        return out.toByteArray();
    }

    /** Sets a 32-bit field of the central directory entry named {@code name}. */
    static void patchCentral(byte[] zip, String name, int field, int value) {
        ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p + 46 < zip.length; p++) {
            if (b.getInt(p) == 0x02014b50
                    && new String(zip, p + 46, b.getShort(p + 28), StandardCharsets.UTF_8)
                            .equals(name)) {
                b.putInt(p + field, value);
                return;
            }
        }
        throw new AssertionError("no central entry " + name);
    }

    static void replace(byte[] zip, String from, String to) {
        byte[] f = from.getBytes(StandardCharsets.UTF_8);
        byte[] t = to.getBytes(StandardCharsets.UTF_8);
        for (int p = 0; p + f.length <= zip.length; p++) {
            if (java.util.Arrays.equals(zip, p, p + f.length, f, 0, f.length)) {
                System.arraycopy(t, 0, zip, p, t.length);
            }
        }
    }

    /** A stored entry's local header and data. */
    static byte[] local(String name, byte[] data) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b =
                ByteBuffer.allocate(30 + n.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x04034b50).putShort((short) 10).putShort((short) 0).putShort((short) 0);
        b.putInt(0).putInt((int) crc(data)).putInt(data.length).putInt(data.length);
        b.putShort((short) n.length).putShort((short) 0).put(n).put(data);
        return b.array();
    }

    /** A stored entry's central directory record. */
    static byte[] central(String name, int offset, byte[] data) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(46 + n.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x02014b50).putShort((short) 20).putShort((short) 10).putShort((short) 0);
        b.putShort((short) 0).putInt(0).putInt((int) crc(data)).putInt(data.length);
        b.putInt(data.length).putShort((short) n.length).putShort((short) 0).putShort((short) 0);
        b.putShort((short) 0).putShort((short) 0).putInt(0).putInt(offset).put(n);
        return b.array();
    }

    static byte[] archive(byte[] locals, byte[]... centrals) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(locals);
        int cenSize = 0;
        for (byte[] c : centrals) {
            out.writeBytes(c);
            cenSize += c.length;
        }
        ByteBuffer end = ByteBuffer.allocate(22).order(ByteOrder.LITTLE_ENDIAN);
        end.putInt(0x06054b50).putShort((short) 0).putShort((short) 0);
        end.putShort((short) centrals.length).putShort((short) centrals.length);
        end.putInt(cenSize).putInt(locals.length).putShort((short) 0);
        out.writeBytes(end.array());
        return out.toByteArray();
    }

    static long crc(byte[] data) {
        CRC32 c = new CRC32();
        c.update(data);
        return c.getValue();
    }
}
