package dev.sandjar.packs.internal.zip;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostArgs;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The {@code zip} host module, declared by {@code @sandjar/zip}: list, extract and create ZIP
 * archives in memory with java.util.zip, every archive checked by {@link SafeZip} first. Caps: the
 * archive at most {@link HostLimits#MAX_BYTES}; {@link #MAX_ENTRIES} entries; {@link #MAX_INFLATED}
 * bytes actually inflated per call; a created archive's input at most {@link #MAX_INFLATED} bytes.
 */
public final class ZipModule {
    static final String ID = "zip";
    static final String PACKAGE = "@sandjar/zip";

    static final int MAX_ENTRIES = 10_000;
    static final long MAX_INFLATED = 50L << 20;

    private ZipModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("List, extract and create ZIP archives, zip-bomb safe (java.util.zip)")
                .export(
                        Operation.builder("list")
                                .param(Param.bytes("zip").maxLength(HostLimits.MAX_BYTES))
                                .handler(ZipModule::list)
                                .build())
                .export(
                        Operation.builder("extract")
                                .param(Param.bytes("zip").maxLength(HostLimits.MAX_BYTES))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(ZipModule::extract)
                                .build())
                .export(
                        Operation.builder("create")
                                .param(Param.array("entries").maxLength(MAX_ENTRIES))
                                .param(Param.object("options").optional().maxLength(4))
                                .handler(ZipModule::create)
                                .build())
                .build();
    }

    static SafeZip open(byte[] zip, String where) {
        return SafeZip.open(zip, where, MAX_ENTRIES, MAX_INFLATED, 0);
    }

    private static Object list(OperationCall call) {
        byte[] zip = call.bytes(0);
        return HostWork.submit(
                call,
                w -> {
                    List<Object> out = new ArrayList<>();
                    for (SafeZip.Entry e : open(zip, w.where()).entries()) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("name", e.name());
                        m.put("directory", e.directory());
                        m.put("size", e.size());
                        m.put("compressedSize", e.compressedSize());
                        m.put("modified", e.modified());
                        w.output(e.name().length() + 64L);
                        out.add(m);
                    }
                    return out;
                });
    }

    private static Object extract(OperationCall call) {
        byte[] zip = call.bytes(0);
        HostArgs.Options o = HostArgs.options(call, 1, "names", "text");
        boolean text = o.bool("text", false);
        Set<String> wanted = null;
        if (o.has("names")) {
            if (!(o.raw("names") instanceof List<?> names) || names.size() > MAX_ENTRIES) {
                throw HostWork.invalid(
                        call.where(),
                        "options.names must be an array of at most " + MAX_ENTRIES + " names");
            }
            wanted = new HashSet<>();
            for (Object n : names) {
                if (!(n instanceof String s)) {
                    throw HostWork.invalid(call.where(), "options.names must hold strings");
                }
                wanted.add(s);
            }
        }
        Set<String> only = wanted;
        return HostWork.submit(
                call,
                w -> {
                    SafeZip archive = open(zip, w.where());
                    if (only != null) {
                        for (String n : only) {
                            if (archive.find(n) == null) {
                                throw new BridgeException(
                                        "ZipError",
                                        "ZIP_NO_ENTRY",
                                        w.where() + ": no entry named '" + n + "'");
                            }
                        }
                    }
                    List<Object> out = new ArrayList<>();
                    for (SafeZip.Entry e : archive.entries()) {
                        if (e.directory() || (only != null && !only.contains(e.name()))) {
                            continue;
                        }
                        byte[] data = archive.read(e, w);
                        w.output(data.length);
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("name", e.name());
                        m.put("data", text ? new String(data, StandardCharsets.UTF_8) : data);
                        out.add(m);
                    }
                    return out;
                });
    }

    private static Object create(OperationCall call) {
        List<Object> entries = call.array(0);
        HostArgs.Options o = HostArgs.options(call, 1, "level");
        int level = (int) o.integer("level", 6, 0, 9);
        List<String> names = new ArrayList<>();
        List<byte[]> data = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long total = 0;
        for (int i = 0; i < entries.size(); i++) {
            String path = "entries[" + i + "]";
            if (!(entries.get(i) instanceof Map<?, ?> m)) {
                throw HostWork.invalid(call.where(), path + " must be { name, data }");
            }
            if (!(m.get("name") instanceof String name)) {
                throw HostWork.invalid(call.where(), path + ".name must be a string");
            }
            String problem = SafeZip.nameProblem(name);
            if (problem != null) {
                throw new BridgeException(
                        "ZipError",
                        "ZIP_BAD_NAME",
                        call.where() + ": entry name '" + name + "' " + problem);
            }
            if (!seen.add(name)) {
                throw new BridgeException(
                        "ZipError",
                        "ZIP_BAD_NAME",
                        call.where() + ": entry '" + name + "' appears twice");
            }
            Object d = m.get("data");
            byte[] bytes =
                    d instanceof String s
                            ? s.getBytes(StandardCharsets.UTF_8)
                            : HostArgs.bytesOrNull(d);
            if (bytes == null && !name.endsWith("/")) {
                throw HostWork.invalid(
                        call.where(), path + ".data must be a string or a Uint8Array");
            }
            total += bytes == null ? 0 : bytes.length;
            if (total > MAX_INFLATED) {
                throw HostWork.tooLarge(
                        call.where(), "the entries hold more than " + MAX_INFLATED + " bytes");
            }
            names.add(name);
            data.add(bytes == null ? new byte[0] : bytes);
        }
        return HostWork.submit(
                call,
                w -> {
                    Bounded out = new Bounded(w);
                    try (ZipOutputStream zip = new ZipOutputStream(out, StandardCharsets.UTF_8)) {
                        zip.setLevel(level);
                        for (int i = 0; i < names.size(); i++) {
                            w.check();
                            ZipEntry e = new ZipEntry(names.get(i));
                            e.setTime(315532800000L); // 1980-01-01: archives are reproducible
                            zip.putNextEntry(e);
                            zip.write(data.get(i));
                            zip.closeEntry();
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return out.bytes.toByteArray();
                });
    }

    /** The archive being written, counted as output as it grows. */
    private static final class Bounded extends OutputStream {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private final HostWork.Work w;

        Bounded(HostWork.Work w) {
            this.w = w;
        }

        @Override
        public void write(int b) {
            w.output(1);
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            w.output(len);
            bytes.write(b, off, len);
        }
    }
}
