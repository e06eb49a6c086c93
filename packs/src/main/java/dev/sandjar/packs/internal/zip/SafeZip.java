package dev.sandjar.packs.internal.zip;

import dev.sandjar.host.BridgeException;
import dev.sandjar.packs.internal.HostWork;
import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A ZIP archive in memory, read from its central directory and checked before anything is inflated:
 * at most {@code maxEntries} entries; names relative, without {@code ..}, backslashes, drive
 * letters or control characters, and unique; each entry's local header agreeing with the central
 * directory; entries' data not overlapping (the overlapping-entry bomb, where many entries share
 * one compressed kernel) and inside the archive; no encryption, no ZIP64, stored or deflated only.
 * Inflating counts the bytes actually produced, never the declared sizes: past {@code maxInflated}
 * in one archive, or past {@code maxRatio} times an entry's compressed size, it stops. An entry
 * must inflate to exactly its declared size and CRC.
 *
 * <p>Public only for the host modules in sibling {@code internal} packages (the Office readers);
 * not API.
 */
public final class SafeZip {
    /** One checked entry. */
    public record Entry(
            String name,
            boolean directory,
            int method,
            long compressedSize,
            long size,
            long crc,
            int dataStart,
            long modified) {}

    private static final int EOCD = 0x06054b50;
    private static final int CEN = 0x02014b50;
    private static final int LOC = 0x04034b50;

    private final byte[] zip;
    private final List<Entry> entries;
    private final String where;
    private final long maxInflated;
    private final int maxRatio;
    private long inflated;

    private SafeZip(byte[] zip, List<Entry> entries, String where, long maxInflated, int maxRatio) {
        this.zip = zip;
        this.entries = entries;
        this.where = where;
        this.maxInflated = maxInflated;
        this.maxRatio = maxRatio;
    }

    /**
     * Reads and checks the archive's directory.
     *
     * @param maxRatio the largest inflated-to-compressed ratio of an entry that inflates past 1
     *     MiB; 0 for none
     */
    public static SafeZip open(
            byte[] zip, String where, int maxEntries, long maxInflated, int maxRatio) {
        int eocd = findEocd(zip);
        if (eocd < 0) {
            throw bad(where, "not a ZIP archive (no end of central directory record)");
        }
        int disk = u16(zip, eocd + 4);
        int count = u16(zip, eocd + 10);
        long cenSize = u32(zip, eocd + 12);
        long cenOffset = u32(zip, eocd + 16);
        if (disk != 0 || u16(zip, eocd + 8) != count) {
            throw bad(where, "multi-volume archives are not supported");
        }
        if (count == 0xFFFF || cenOffset == 0xFFFFFFFFL || cenSize == 0xFFFFFFFFL) {
            throw bad(where, "ZIP64 archives are not supported");
        }
        if (count > maxEntries) {
            throw HostWork.tooLarge(
                    where, "the archive has " + count + " entries; at most " + maxEntries);
        }
        if (cenOffset + cenSize > eocd) {
            throw bad(where, "the central directory lies outside the archive");
        }
        List<Entry> entries = new ArrayList<>(count);
        Set<String> names = new HashSet<>();
        List<long[]> spans = new ArrayList<>();
        int p = (int) cenOffset;
        for (int i = 0; i < count; i++) {
            need(zip, p, 46, where);
            if (i32(zip, p) != CEN) {
                throw bad(where, "central directory entry " + i + " is damaged");
            }
            int flags = u16(zip, p + 8);
            int method = u16(zip, p + 10);
            long time = u32(zip, p + 12);
            long crc = u32(zip, p + 16);
            long csize = u32(zip, p + 20);
            long size = u32(zip, p + 24);
            int nameLen = u16(zip, p + 28);
            int extraLen = u16(zip, p + 30);
            int commentLen = u16(zip, p + 32);
            long local = u32(zip, p + 42);
            need(zip, p + 46, nameLen, where);
            String name = name(zip, p + 46, nameLen);
            if (csize == 0xFFFFFFFFL || size == 0xFFFFFFFFL || local == 0xFFFFFFFFL) {
                throw bad(where, "ZIP64 entries are not supported ('" + name + "')");
            }
            if ((flags & 1) != 0) {
                throw bad(where, "entry '" + name + "' is encrypted");
            }
            if (method != 0 && method != 8) {
                throw bad(
                        where,
                        "entry '"
                                + name
                                + "' uses compression method "
                                + method
                                + " (only stored and deflated)");
            }
            checkName(where, name);
            if (!names.add(name)) {
                throw new BridgeException(
                        "ZipError", "ZIP_BAD_NAME", where + ": entry '" + name + "' appears twice");
            }
            // The local header: where the data starts, and the same name.
            if (local + 30 > cenOffset || i32(zip, (int) local) != LOC) {
                throw bad(
                        where, "entry '" + name + "' has no local header where the directory says");
            }
            int lNameLen = u16(zip, (int) local + 26);
            int lExtraLen = u16(zip, (int) local + 28);
            long dataStart = local + 30 + lNameLen + lExtraLen;
            if (lNameLen != nameLen
                    || !java.util.Arrays.equals(
                            zip,
                            (int) local + 30,
                            (int) local + 30 + nameLen,
                            zip,
                            p + 46,
                            p + 46 + nameLen)) {
                throw bad(where, "entry '" + name + "': the local header names another file");
            }
            if (dataStart + csize > cenOffset) {
                throw bad(where, "entry '" + name + "' runs past the end of the archive's data");
            }
            if (method == 0 && csize != size) {
                throw bad(where, "stored entry '" + name + "' declares two sizes");
            }
            spans.add(new long[] {local, dataStart + csize, i});
            boolean directory = name.endsWith("/");
            entries.add(
                    new Entry(
                            name,
                            directory,
                            method,
                            csize,
                            size,
                            crc,
                            (int) dataStart,
                            dosTime(time)));
            p += 46 + nameLen + extraLen + commentLen;
        }
        spans.sort(Comparator.comparingLong(s -> s[0]));
        for (int i = 1; i < spans.size(); i++) {
            if (spans.get(i)[0] < spans.get(i - 1)[1]) {
                throw new BridgeException(
                        "ZipError",
                        "ZIP_BOMB",
                        where
                                + ": entries '"
                                + entries.get((int) spans.get(i - 1)[2]).name()
                                + "' and '"
                                + entries.get((int) spans.get(i)[2]).name()
                                + "' overlap (an overlapping-entry zip bomb?)");
            }
        }
        return new SafeZip(
                zip, Collections.unmodifiableList(entries), where, maxInflated, maxRatio);
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The entry named {@code name}, or null. */
    public Entry find(String name) {
        for (Entry e : entries) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /** Bytes inflated so far by this archive's reads. */
    public long inflated() {
        return inflated;
    }

    /** The entry's bytes, inflated under the caps and checked against its size and CRC. */
    public byte[] read(Entry e, HostWork.Work work) {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(e.size(), 1 << 16));
        CRC32 crc = new CRC32();
        byte[] buf = new byte[16 << 10];
        long produced = 0;
        if (e.method() == 0) {
            for (long off = 0; off < e.compressedSize(); off += buf.length) {
                int n = (int) Math.min(buf.length, e.compressedSize() - off);
                produced = count(e, produced, n);
                out.write(zip, e.dataStart() + (int) off, n);
                crc.update(zip, e.dataStart() + (int) off, n);
                work.check();
            }
        } else {
            Inflater inf = new Inflater(true);
            try {
                inf.setInput(zip, e.dataStart(), (int) e.compressedSize());
                while (!inf.finished()) {
                    int n = inf.inflate(buf);
                    if (n == 0 && (inf.needsInput() || inf.needsDictionary())) {
                        throw bad(where, "entry '" + e.name() + "' is truncated");
                    }
                    produced = count(e, produced, n);
                    out.write(buf, 0, n);
                    crc.update(buf, 0, n);
                    work.check();
                }
            } catch (DataFormatException x) {
                throw bad(where, "entry '" + e.name() + "' is damaged: " + x.getMessage());
            } finally {
                inf.end();
            }
        }
        if (produced != e.size()) {
            throw bad(
                    where,
                    "entry '"
                            + e.name()
                            + "' inflates to "
                            + produced
                            + " bytes but declares "
                            + e.size());
        }
        if (crc.getValue() != e.crc()) {
            throw bad(where, "entry '" + e.name() + "' fails its CRC check");
        }
        return out.toByteArray();
    }

    private long count(Entry e, long produced, int n) {
        produced += n;
        inflated += n;
        if (inflated > maxInflated) {
            throw new BridgeException(
                    "ZipError",
                    "ZIP_BOMB",
                    where
                            + ": the archive inflates past "
                            + maxInflated
                            + " bytes (the cap on bytes actually inflated)");
        }
        if (maxRatio > 0
                && produced > (1 << 20)
                && produced > (long) maxRatio * Math.max(1, e.compressedSize())) {
            throw new BridgeException(
                    "ZipError",
                    "ZIP_BOMB",
                    where
                            + ": entry '"
                            + e.name()
                            + "' inflates more than "
                            + maxRatio
                            + " times its compressed size");
        }
        if (produced > e.size()) {
            throw bad(
                    where,
                    "entry '" + e.name() + "' inflates past its declared " + e.size() + " bytes");
        }
        return produced;
    }

    /**
     * Why {@code name} may not be an entry name, or null: empty, over 1,024 characters, absolute, a
     * drive letter, a backslash, a control character, or a {@code .}/{@code ..} segment.
     */
    public static String nameProblem(String name) {
        if (name.isEmpty() || name.length() > 1024) {
            return "must have 1 to 1024 characters";
        }
        if (name.startsWith("/")) {
            return "is absolute";
        }
        if (name.length() >= 2 && name.charAt(1) == ':') {
            return "starts with a drive letter";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '\\') {
                return "holds a backslash";
            }
            if (c < 0x20 || c == 0x7f) {
                return "holds a control character";
            }
        }
        String body = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
        for (String seg : body.split("/", -1)) {
            if (seg.equals("..")) {
                return "leaves the archive (a '..' segment)";
            }
            if (seg.isEmpty() || seg.equals(".")) {
                return "has an empty or '.' segment";
            }
        }
        return null;
    }

    private static void checkName(String where, String name) {
        String problem = nameProblem(name);
        if (problem != null) {
            throw new BridgeException(
                    "ZipError",
                    "ZIP_BAD_NAME",
                    where + ": entry name '" + printable(name) + "' " + problem);
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.substring(0, Math.min(s.length(), 200)).toCharArray()) {
            b.append(
                    c < 0x20 || c == 0x7f
                            ? String.format(Locale.ROOT, "\\x%02x", (int) c)
                            : String.valueOf(c));
        }
        return b.toString();
    }

    /**
     * A name as UTF-8 (flagged or not: most tools write UTF-8 either way), else as Latin-1, which
     * keeps every byte (IBM437's ASCII half reads the same).
     */
    private static String name(byte[] zip, int off, int len) {
        var decoder =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(java.nio.ByteBuffer.wrap(zip, off, len)).toString();
        } catch (CharacterCodingException e) {
            return new String(zip, off, len, StandardCharsets.ISO_8859_1);
        }
    }

    private static int findEocd(byte[] zip) {
        int min = Math.max(0, zip.length - 22 - 0xFFFF);
        for (int p = zip.length - 22; p >= min; p--) {
            if (i32(zip, p) == EOCD && p + 22 + u16(zip, p + 20) == zip.length) {
                return p;
            }
        }
        return -1;
    }

    private static void need(byte[] zip, long off, long len, String where) {
        if (off < 0 || off + len > zip.length) {
            throw bad(where, "the central directory is truncated");
        }
    }

    private static long dosTime(long t) {
        int date = (int) (t >>> 16);
        int time = (int) (t & 0xFFFF);
        try {
            return java.time.LocalDateTime.of(
                            ((date >> 9) & 0x7f) + 1980,
                            Math.max(1, (date >> 5) & 0x0f),
                            Math.max(1, date & 0x1f),
                            (time >> 11) & 0x1f,
                            (time >> 5) & 0x3f,
                            Math.min(59, (time & 0x1f) * 2))
                    .toInstant(java.time.ZoneOffset.UTC)
                    .toEpochMilli();
        } catch (java.time.DateTimeException e) {
            return 0;
        }
    }

    static int u16(byte[] b, int p) {
        return (b[p] & 0xff) | (b[p + 1] & 0xff) << 8;
    }

    static long u32(byte[] b, int p) {
        return i32(b, p) & 0xFFFFFFFFL;
    }

    static int i32(byte[] b, int p) {
        if (p < 0 || p + 4 > b.length) {
            return 0;
        }
        return (b[p] & 0xff)
                | (b[p + 1] & 0xff) << 8
                | (b[p + 2] & 0xff) << 16
                | (b[p + 3] & 0xff) << 24;
    }

    public static BridgeException bad(String where, String message) {
        return new BridgeException("ZipError", "ZIP_MALFORMED", where + ": " + message);
    }
}
