package dev.sandjar.packs.internal.exif;

import com.drew.imaging.ImageMetadataReader;
import com.drew.imaging.ImageProcessingException;
import com.drew.lang.GeoLocation;
import com.drew.metadata.Directory;
import com.drew.metadata.Metadata;
import com.drew.metadata.Tag;
import com.drew.metadata.exif.GpsDirectory;
import dev.sandjar.host.BridgeException;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import dev.sandjar.host.Operation;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.Param;
import dev.sandjar.packs.HostModule;
import dev.sandjar.packs.internal.HostLimits;
import dev.sandjar.packs.internal.HostWork;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code exif} host module, declared by {@code @sandjar/exif}: an image's metadata (Exif, GPS,
 * IPTC, XMP, ICC, and the file format's own headers for JPEG, PNG, GIF, TIFF, WebP, HEIF, raw
 * formats and more) read by Drew Noakes' metadata-extractor, as each tag's human-readable
 * description. Caps: the image at most {@link HostLimits#MAX_BYTES}; at most {@link #MAX_TAGS} tags
 * and {@link #MAX_DESCRIPTION} characters per description (longer ones are cut, ending in "…").
 */
public final class ExifModule {
    static final String ID = "exif";
    static final String PACKAGE = "@sandjar/exif";

    static final int MAX_TAGS = 10_000;
    static final int MAX_DESCRIPTION = 2_000;

    private ExifModule() {}

    public static HostModule create() {
        return HostModule.builder(ID, PACKAGE)
                .description("Image metadata: Exif, GPS, IPTC, XMP (metadata-extractor)")
                .export(
                        Operation.builder("read")
                                .param(Param.bytes("image").maxLength(HostLimits.MAX_BYTES))
                                .handler(ExifModule::read)
                                .build())
                .build();
    }

    private static Object read(OperationCall call) {
        return HostWork.isolated(call, Task.class, call.bytes(0));
    }

    /**
     * The module's work on a guest's image, run as an {@link IsolatedTask} (docs/sandbox.md, "Host
     * work"): metadata-extractor over a hostile file runs in a worker process. Public for the
     * worker; not API.
     */
    public static final class Task implements IsolatedTask {
        public Task() {}

        @Override
        public Object run(Object input, HostCall call) {
            return read((byte[]) input, HostWork.Work.of(call));
        }
    }

    private static Map<String, Object> read(byte[] image, HostWork.Work w) {
        PngChunks.check(image, w);
        Metadata metadata;
        try {
            metadata =
                    ImageMetadataReader.readMetadata(new ByteArrayInputStream(image), image.length);
        } catch (ImageProcessingException | IOException e) {
            String m = String.valueOf(e.getMessage());
            throw new BridgeException(
                    "ExifError",
                    "EXIF_UNREADABLE",
                    w.where() + ": " + (m.length() > 200 ? m.substring(0, 200) : m));
        }
        Map<String, Object> directories = new LinkedHashMap<>();
        int tags = 0;
        Map<String, Object> gps = null;
        for (Directory d : metadata.getDirectories()) {
            w.check();
            @SuppressWarnings("unchecked")
            Map<String, Object> dir =
                    (Map<String, Object>)
                            directories.computeIfAbsent(
                                    d.getName(), k -> new LinkedHashMap<String, Object>());
            for (Tag t : d.getTags()) {
                if (++tags > MAX_TAGS) {
                    throw HostWork.tooLarge(
                            w.where(), "the image has more than " + MAX_TAGS + " metadata tags");
                }
                String desc = t.getDescription();
                if (desc == null) {
                    continue;
                }
                if (desc.length() > MAX_DESCRIPTION) {
                    desc = desc.substring(0, MAX_DESCRIPTION - 1) + "…";
                }
                w.output(desc.length() + t.getTagName().length());
                dir.putIfAbsent(t.getTagName(), desc);
            }
            if (d instanceof GpsDirectory g && gps == null) {
                GeoLocation loc = g.getGeoLocation();
                if (loc != null && !loc.isZero()) {
                    gps = new LinkedHashMap<>();
                    gps.put("latitude", loc.getLatitude());
                    gps.put("longitude", loc.getLongitude());
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("directories", directories);
        if (gps != null) {
            out.put("gps", gps);
        }
        return out;
    }
}
