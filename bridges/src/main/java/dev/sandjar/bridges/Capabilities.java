package dev.sandjar.bridges;

import dev.sandjar.bridges.audio.Audio;
import dev.sandjar.bridges.canvas.Canvas;
import dev.sandjar.bridges.console.Console;
import dev.sandjar.bridges.crypto.Crypto;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.format.Format;
import dev.sandjar.bridges.helpers.GuestHelpers;
import dev.sandjar.bridges.image.Images;
import dev.sandjar.bridges.media.Media;
import dev.sandjar.bridges.media.MediaLimits;
import dev.sandjar.bridges.progress.Progress;
import dev.sandjar.bridges.progress.ProgressListener;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.secrets.Secrets;
import dev.sandjar.bridges.time.Sleep;
import dev.sandjar.bridges.video.Video;
import dev.sandjar.bridges.video.VideoConfig;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The standard capabilities for a run, assembled: {@code console}, {@code sleep}, {@code crypto},
 * {@code format}, {@code progress}, the guest {@code helpers}, {@code media}, {@code image}, {@code
 * canvas} and {@code audio} are on unless withheld; {@code fetch}, {@code workspace}, {@code
 * secrets} and {@code video} (which runs the host's ffmpeg) are off unless granted. Media refs read
 * workspace paths only with the workspace granted and {@code https:} URLs only with fetch.
 *
 * <pre>{@code
 * List<Bridge> bridges = Capabilities.builder()
 *         .withhold("format")
 *         .fetch(fetch)                                  // a shared Fetch
 *         .workspace(WorkspaceBridge.create(dir))
 *         .secrets(store, Set.of("API_TOKEN"))
 *         .build();
 * RunRequest request = RunRequest.builder(code).bridges(bridges).build();
 * }</pre>
 */
public final class Capabilities {
    /** The capabilities on unless withheld, by name. */
    public static final List<String> DEFAULTS =
            List.of(
                    "console",
                    "sleep",
                    "crypto",
                    "format",
                    "progress",
                    "helpers",
                    "media",
                    "image",
                    "canvas",
                    "audio");

    private Capabilities() {}

    public static Builder builder() {
        return new Builder();
    }

    /** Every default capability, nothing guarded, progress reports dropped. */
    public static List<Bridge> defaults() {
        return builder().build();
    }

    public static final class Builder {
        private final Set<String> withheld = new LinkedHashSet<>();
        private ProgressListener progress = report -> {};
        private Fetch fetch;
        private WorkspaceBridge workspace;
        private Bridge secrets;
        private MediaLimits mediaLimits = MediaLimits.defaults();
        private VideoConfig video;

        private Builder() {}

        /** Leaves out default capabilities by name (one of {@link #DEFAULTS}). */
        public Builder withhold(String... names) {
            for (String n : names) {
                if (!DEFAULTS.contains(n)) {
                    throw new InvalidRequestException(
                            "cannot withhold '"
                                    + n
                                    + "': the default capabilities are "
                                    + DEFAULTS);
                }
                withheld.add(n);
            }
            return this;
        }

        /** Where {@code progress(...)} reports go (they are dropped otherwise). */
        public Builder progress(ProgressListener listener) {
            this.progress = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public Builder fetch(Fetch fetch) {
            this.fetch = Objects.requireNonNull(fetch, "fetch");
            return this;
        }

        public Builder workspace(WorkspaceBridge workspace) {
            this.workspace = Objects.requireNonNull(workspace, "workspace");
            return this;
        }

        /** The caps of media, image and canvas (default {@link MediaLimits#defaults()}). */
        public Builder mediaLimits(MediaLimits limits) {
            this.mediaLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Grants {@code video}, which runs the host's ffmpeg as {@code config} says; share one
         * config across runs so its process cap holds for all of them.
         */
        public Builder video(VideoConfig config) {
            this.video = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Every secret in the store. */
        public Builder secrets(SecretStore store) {
            this.secrets = Secrets.bridge(store);
            return this;
        }

        /** Only the named secrets (an empty scope denies all). */
        public Builder secrets(SecretStore store, Set<String> scope) {
            this.secrets = Secrets.bridge(store, scope);
            return this;
        }

        public List<Bridge> build() {
            List<Bridge> out = new ArrayList<>();
            add(out, "console", Console.bridge());
            add(out, "sleep", Sleep.bridge());
            add(out, "crypto", Crypto.bridge());
            add(out, "format", Format.bridge());
            add(out, "progress", Progress.bridge(progress));
            add(out, "helpers", GuestHelpers.bridge());
            // Media refs read the workspace and the network only through the granted bridges.
            Media media =
                    Media.builder()
                            .withLimits(mediaLimits)
                            .withWorkspace(workspace)
                            .withFetch(fetch)
                            .build();
            add(out, "media", media.bridge());
            add(out, "image", Images.bridge(media));
            add(out, "canvas", Canvas.bridge(media));
            for (Bridge guarded :
                    new Bridge[] {
                        fetch == null ? null : fetch.bridge(),
                        workspace == null ? null : workspace.bridge(),
                        secrets
                    }) {
                if (guarded != null) {
                    out.add(guarded);
                }
            }
            add(out, "audio", Audio.create(media).bridge());
            if (video != null) {
                out.add(Video.create(media, video).bridge());
            }
            return List.copyOf(out);
        }

        private void add(List<Bridge> out, String name, Bridge bridge) {
            if (!withheld.contains(name)) {
                out.add(bridge);
            }
        }
    }
}
