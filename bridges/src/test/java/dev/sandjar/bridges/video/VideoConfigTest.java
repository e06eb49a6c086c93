package dev.sandjar.bridges.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.InvalidRequestException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The video configuration and the error without ffmpeg: these run on every host. */
class VideoConfigTest {
    @Test
    void absentBinariesAreAClearError() {
        VideoConfig none =
                VideoConfig.builder()
                        .withFfmpeg(Path.of("/nonexistent/ffmpeg"))
                        .withFfprobe(Path.of("/nonexistent/ffprobe"))
                        .build();
        assertFalse(none.available());
        BridgeException e =
                assertThrows(
                        BridgeException.class,
                        () ->
                                new VideoOps(new Ffmpeg(none))
                                        .info(new byte[10], VideoOpsTest.LIVE, "video.info"));
        assertEquals("UNAVAILABLE", e.code());
        assertEquals(
                "video.info: video needs ffmpeg and ffprobe on the host (Debian package ffmpeg),"
                        + " and they were not found",
                e.getMessage());
    }

    @Test
    void configIsCheckedWhereSet() {
        assertEquals(
                "timeout (PT11M) must be more than 0 and at most PT10M",
                assertThrows(
                                InvalidRequestException.class,
                                () -> VideoConfig.builder().withTimeout(Duration.ofMinutes(11)))
                        .getMessage());
        assertEquals(
                "maxProcesses (17) must be between 1 and 16",
                assertThrows(
                                InvalidRequestException.class,
                                () -> VideoConfig.builder().withMaxProcesses(17))
                        .getMessage());
        assertThrows(
                InvalidRequestException.class,
                () -> VideoConfig.builder().withFfmpeg(Path.of("ffmpeg")));
    }
}
