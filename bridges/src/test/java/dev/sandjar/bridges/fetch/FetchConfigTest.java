package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandjar.host.InvalidRequestException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class FetchConfigTest {

    @Test
    void defaultsMatchTheSandboxLimits() {
        FetchConfig config = FetchConfig.defaults();
        assertEquals(Duration.ofSeconds(15), config.timeout());
        assertEquals(1024 * 1024, config.maxBodyBytes());
        assertEquals(5, config.maxRedirects());
        assertFalse(config.allowPrivateNetwork());
    }

    @Test
    void eachLimitIsCheckedWithAMessageNamingValueAndBound() {
        assertMessage(
                "timeout (120001 ms) must be between 1 ms and 120000 ms",
                () -> FetchConfig.builder().withTimeout(Duration.ofMillis(120_001)));
        assertMessage(
                "timeout (0 ms) must be between 1 ms and 120000 ms",
                () -> FetchConfig.builder().withTimeout(Duration.ZERO));
        assertMessage(
                "maxBodyBytes (52428801) must be between 1 and 52428800",
                () -> FetchConfig.builder().withMaxBodyBytes(50L * 1024 * 1024 + 1));
        assertMessage(
                "maxBodyBytes (0) must be between 1 and 52428800",
                () -> FetchConfig.builder().withMaxBodyBytes(0));
        assertMessage(
                "maxRedirects (21) must be between 0 and 20",
                () -> FetchConfig.builder().withMaxRedirects(21));
        assertMessage(
                "maxRedirects (-1) must be between 0 and 20",
                () -> FetchConfig.builder().withMaxRedirects(-1));
        assertMessage(
                "maxTlsClients (0) must be between 1 and 64",
                () -> FetchConfig.builder().withMaxTlsClients(0));
    }

    @Test
    void ceilingsThemselvesAreAccepted() {
        FetchConfig config =
                FetchConfig.builder()
                        .withTimeout(FetchConfig.MAX_TIMEOUT)
                        .withMaxBodyBytes(FetchConfig.MAX_BODY_BYTES)
                        .withMaxRedirects(FetchConfig.MAX_REDIRECTS)
                        .build();
        assertEquals(FetchConfig.MAX_BODY_BYTES, config.maxBodyBytes());
    }

    private static void assertMessage(String message, Executable executable) {
        assertEquals(message, assertThrows(InvalidRequestException.class, executable).getMessage());
    }
}
