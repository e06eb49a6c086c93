package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FetchRequestTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Host",
                "host",
                "Connection",
                "Keep-Alive",
                "Proxy-Authorization",
                "Proxy-Connection",
                "TE",
                "Trailer",
                "Transfer-Encoding",
                "Upgrade",
                "Content-Length",
                "Expect",
            })
    void connectionLevelHeadersAreRefused(String name) {
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> FetchRequest.builder("http://a.test/").addHeader(name, "x"));
        assertEquals(Code.BAD_HEADER, e.code());
        assertTrue(e.getMessage().contains(name), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\r\nInjected: 1", "a\nb", "a\rb", "a\u0000b", "a\u007fb", "\u20ac"})
    void controlCharactersAndNonLatin1InValuesAreRefused(String value) {
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> FetchRequest.builder("http://a.test/").addHeader("X-A", value));
        assertEquals(Code.BAD_HEADER, e.code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Bad Name", "X-A:", "X\r\nY", "Ünicode", "(x)"})
    void invalidHeaderNamesAreRefused(String name) {
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> FetchRequest.builder("http://a.test/").addHeader(name, "v"));
        assertEquals(Code.BAD_HEADER, e.code());
    }

    @Test
    void headersKeepOrderAndDuplicatesAndTrimValues() {
        FetchRequest request =
                FetchRequest.builder("http://a.test/")
                        .addHeader("X-Multi", " one ")
                        .addHeader("Accept", "text/plain")
                        .addHeader("X-Multi", "\ttwo")
                        .build();
        assertEquals(
                List.of(
                        Map.entry("X-Multi", "one"),
                        Map.entry("Accept", "text/plain"),
                        Map.entry("X-Multi", "two")),
                request.headers());
    }

    @ParameterizedTest
    @CsvSource({"get, GET", "Post, POST", "delete, DELETE", "patch, patch", "PATCH, PATCH"})
    void standardMethodsAreUpperCasedLikeFetch(String given, String sent) {
        assertEquals(
                sent, FetchRequest.builder("http://a.test/").withMethod(given).build().method());
    }

    @ParameterizedTest
    @ValueSource(strings = {"CONNECT", "trace", "TRACK", "", "GET /", "G\nET"})
    void forbiddenOrInvalidMethodsAreRefused(String method) {
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> FetchRequest.builder("http://a.test/").withMethod(method));
        assertEquals(Code.BAD_REQUEST, e.code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "HEAD"})
    void getAndHeadCannotHaveABody(String method) {
        FetchRequest.Builder builder =
                FetchRequest.builder("http://a.test/").withMethod(method).withBody(new byte[1]);
        assertEquals(Code.BAD_REQUEST, assertThrows(FetchException.class, builder::build).code());
    }

    @Test
    void badUrlIsRefusedWhenTheBuilderIsCreated() {
        FetchException e =
                assertThrows(FetchException.class, () -> FetchRequest.builder("gopher://a.test/"));
        assertEquals(Code.BAD_URL, e.code());
    }
}
