package dev.sandjar.quickjs;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An engine's state taken over a base {@link EngineSnapshot}, in a form that outlives the engine:
 * linear memory (its non-zero 4 KiB blocks), the memory's size and the WebAssembly globals. The
 * Java side (runtimes, contexts, handles, host functions) is not in it: {@link
 * QuickJsEngine#restoreImage} takes that from a base snapshot of the same shape, on any engine of
 * the same build, in this process or another. So an image is how a persistent session's heap moves
 * between pooled engines and survives a restart.
 *
 * <p>The image names the engine build that made it ({@link #buildId()}) and a fingerprint of its
 * base's Java side; a restore refuses an image of another build or over a base of another shape.
 * Immutable; {@link #write} and {@link #read} give it a byte form (uncompressed; callers compress).
 */
public final class EngineImage {
    private static final int MAGIC = 0x534a494d; // "SJIM"
    private static final int FORMAT = 1;
    private static final int MAX_STRING_BYTES = 4096;

    final String buildId;
    final String baseFingerprint;
    final int pages;
    final long[] globals;
    final MemoryImage memory;

    EngineImage(
            String buildId, String baseFingerprint, int pages, long[] globals, MemoryImage memory) {
        this.buildId = buildId;
        this.baseFingerprint = baseFingerprint;
        this.pages = pages;
        this.globals = globals;
        this.memory = memory;
    }

    /** The engine build that made the image (see {@link QuickJsEngine#buildId()}). */
    public String buildId() {
        return buildId;
    }

    /** Pages of linear memory the engine had; a restore grows the engine to at least this. */
    public int pages() {
        return pages;
    }

    /** Bytes of linear memory in the image (its size), of which {@link #heldBytes()} are kept. */
    public long memoryBytes() {
        return (long) pages * 65536;
    }

    /** Bytes the image keeps: only the non-zero 4 KiB blocks of its memory. */
    public int heldBytes() {
        return memory.heldBytes();
    }

    /** Writes the image's byte form: the header, the globals, then each non-zero block. */
    public void write(OutputStream out) throws IOException {
        DataOutputStream d = new DataOutputStream(out);
        d.writeInt(MAGIC);
        d.writeInt(FORMAT);
        d.writeUTF(buildId);
        d.writeUTF(baseFingerprint);
        d.writeInt(pages);
        d.writeInt(globals.length);
        for (long g : globals) {
            d.writeLong(g);
        }
        int extent = memory.extentBytes() / TrackedMemory.BLOCK_SIZE;
        int held = memory.heldBytes() / TrackedMemory.BLOCK_SIZE;
        d.writeInt(extent);
        d.writeInt(held);
        for (int b = 0; b < extent; b++) {
            byte[] block = memory.block(b);
            if (block != null) {
                d.writeInt(b);
                d.write(block);
            }
        }
        d.flush();
    }

    /**
     * Reads an image written by {@link #write}. Every count is checked against the engine's own
     * bounds before anything is allocated for it, so a damaged or hostile input fails with an
     * {@link IOException} naming what was wrong, never with an allocation of its choosing.
     */
    public static EngineImage read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        if (d.readInt() != MAGIC) {
            throw new IOException("not an engine image (its first bytes are wrong)");
        }
        int format = d.readInt();
        if (format != FORMAT) {
            throw new IOException(
                    "engine image format "
                            + format
                            + " is not supported (this build reads "
                            + FORMAT
                            + ")");
        }
        String buildId = d.readUTF();
        String fingerprint = d.readUTF();
        if (buildId.length() > MAX_STRING_BYTES || fingerprint.length() > MAX_STRING_BYTES) {
            throw new IOException("engine image header is too long");
        }
        int pages = d.readInt();
        if (pages < EngineOptions.MIN_MEMORY_PAGES || pages > EngineOptions.MAX_MEMORY_PAGES) {
            throw new IOException(
                    "engine image has "
                            + pages
                            + " memory pages; an engine has "
                            + EngineOptions.MIN_MEMORY_PAGES
                            + " to "
                            + EngineOptions.MAX_MEMORY_PAGES);
        }
        int nGlobals = d.readInt();
        if (nGlobals < 0 || nGlobals > 1024) {
            throw new IOException("engine image has " + nGlobals + " globals; at most 1024");
        }
        long[] globals = new long[nGlobals];
        for (int i = 0; i < nGlobals; i++) {
            globals[i] = d.readLong();
        }
        int maxBlocks = pages * TrackedMemory.BLOCKS_PER_PAGE;
        int extent = d.readInt();
        int held = d.readInt();
        if (extent < 0 || extent > maxBlocks || held < 0 || held > extent) {
            throw new IOException(
                    "engine image block counts ("
                            + held
                            + " of "
                            + extent
                            + ") do not fit its "
                            + pages
                            + " pages");
        }
        byte[][] blocks = new byte[extent][];
        int last = -1;
        for (int i = 0; i < held; i++) {
            int b = d.readInt();
            if (b <= last || b >= extent) {
                throw new IOException("engine image block " + b + " is out of order or range");
            }
            last = b;
            byte[] block = new byte[TrackedMemory.BLOCK_SIZE];
            d.readFully(block);
            blocks[b] = block;
        }
        return new EngineImage(buildId, fingerprint, pages, globals, new MemoryImage(blocks));
    }

    /**
     * The shape of a snapshot's Java side, as a digest: its runtimes' and contexts' addresses, the
     * addresses of the handles it holds and the ids of its host functions. Two snapshots taken at
     * the same point of the same build's deterministic setup have the same fingerprint.
     */
    static String fingerprint(EngineSnapshot base) {
        StringBuilder s = new StringBuilder();
        s.append("rt").append(new TreeSet<>(base.runtimes.keySet()));
        s.append("ctx").append(new TreeSet<>(base.contexts.keySet()));
        Map<Integer, List<Integer>> handles = new TreeMap<>();
        base.handles.forEach(
                (c, h) -> {
                    List<Integer> ptrs = new ArrayList<>(h.values());
                    ptrs.sort(null);
                    handles.put(c.rawPtr(), ptrs);
                });
        s.append("h").append(handles);
        s.append("fn").append(new TreeSet<>(base.hostRefs.entries().keySet()));
        s.append("next").append(base.hostRefs.nextId());
        return sha256(s.toString()).substring(0, 32);
    }

    private static final class Build {
        static final String ID = load();

        private static String load() {
            Properties p = new Properties();
            try (InputStream in =
                    EngineImage.class.getResourceAsStream("engine-build.properties")) {
                if (in == null) {
                    throw new IllegalStateException(
                            "engine-build.properties is missing from the engine jar");
                }
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String sha = p.getProperty("wasm.sha256", "");
            return p.getProperty("package")
                    + "@"
                    + p.getProperty("version")
                    + " (wasm sha256 "
                    + sha.substring(0, Math.min(16, sha.length()))
                    + ")";
        }
    }

    static String currentBuild() {
        return Build.ID;
    }

    static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
