package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.net.InetAddress;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UrlGuardTest {
    private final CountingResolver resolver = new CountingResolver();
    private final UrlGuard guard = new UrlGuard(resolver, false, Set.of());

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "ftp://example.com/",
                "file:///etc/passwd",
                "javascript:alert(1)",
                "http:example.com",
                "//example.com/",
                "example.com",
                "http://user:pass@example.com/",
                "http://user@example.com/",
                "http://@example.com/",
                "http:///path",
                "http://:80/",
                "http://example.com:0/",
                "http://example.com:65536/",
                "http://example.com:8o/",
                "http://example.com:25/",
                "http://example.com:6000/",
                "https://example.com:22/",
                "http://exa mple.com/",
                "http://bücher.de/",
                "http://%31%32%37.0.0.1/",
                "http://exa$mple.com/",
                "http://[::1/",
                "http://[1:2:3]/",
                "http://[::1]x/",
                "http://[fe80::1%]/",
                "http://1.2.3.4.5/",
                "http://256.0.0.1/",
                "http://09.0.0.1/",
                "http://example.com\\@127.0.0.1/",
                "http://a..b/",
            })
    void malformedOrDisallowedUrlsAreBadUrl(String url) {
        FetchException e = assertThrows(FetchException.class, () -> UrlGuard.parse(url));
        assertEquals(Code.BAD_URL, e.code(), e.getMessage());
    }

    @Test
    void credentialsAreNamedInTheMessage() {
        FetchException e =
                assertThrows(
                        FetchException.class, () -> UrlGuard.parse("https://u:p@example.com/"));
        assertTrue(e.getMessage().contains("credentials"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
        "HTTP://Example.COM, http://example.com/",
        "https://example.com:443/a?b=1#frag, https://example.com/a?b=1",
        "http://example.com:8080, http://example.com:8080/",
        "http://example.com:/x, http://example.com/x",
        "http://example.com./x, http://example.com/x",
        "http://my_host.example/, http://my_host.example/",
        "http://example.com/ü?q=ü, http://example.com/%C3%BC?q=%C3%BC",
        "http://0x7f.1:8080/p, http://127.0.0.1:8080/p",
        "http://[::FFFF:127.0.0.1]/, http://[::ffff:7f00:1]/",
        "http://[fe80::1%25eth0]/, http://[fe80::1%25eth0]/",
    })
    void acceptedUrlsAreNormalised(String url, String normalised) {
        assertEquals(normalised, UrlGuard.parse(url).toString());
    }

    @ParameterizedTest
    @CsvSource({
        "http://2130706433/, 127.0.0.0/8",
        "http://127.1/, 127.0.0.0/8",
        "http://0x7f.1/, 127.0.0.0/8",
        "http://0177.0.0.1/, 127.0.0.0/8",
        "http://0x7f000001/, 127.0.0.0/8",
        "http://017700000001/, 127.0.0.0/8",
        "http://127.0.0.1./, 127.0.0.0/8",
        "http://0/, 0.0.0.0/8",
        "http://10.0.0.1/, 10.0.0.0/8",
        "http://100.64.0.1/, 100.64.0.0/10",
        "http://169.254.169.254/latest/meta-data/, 169.254.0.0/16",
        "http://0xa9fea9fe/, 169.254.0.0/16",
        "http://172.16.0.1/, 172.16.0.0/12",
        "http://192.168.1.1/, 192.168.0.0/16",
        "http://224.0.0.1/, 224.0.0.0/4",
        "http://255.255.255.255/, 255.255.255.255/32",
        "http://[::]/, ::/128",
        "http://[::1]/, ::1/128",
        "http://[::ffff:127.0.0.1]/, ::ffff:0:0/96",
        "http://[::ffff:7f00:1]/, ::ffff:0:0/96",
        "http://[::ffff:8.8.8.8]/, ::ffff:0:0/96",
        "http://[::127.0.0.1]/, ::/96",
        "http://[64:ff9b::7f00:1]/, 64:ff9b::/96",
        "http://[2002:7f00:1::1]/, 2002::/16",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/, 2001::/32",
        "http://[fd00::2]/, fc00::/7",
        "http://[fe80::1%25eth0]/, fe80::/10",
        "http://[fe80::1%eth0]:8080/, fe80::/10",
        "http://[ff02::1]/, ff00::/8",
        "https://[2001:db8::1]/, 2001:db8::/32",
    })
    void nonPublicLiteralsAreBlockedWithoutResolving(String url, String cidr) {
        FetchException e = assertThrows(FetchException.class, () -> guard.pin(UrlGuard.parse(url)));
        assertEquals(Code.BLOCKED_ADDRESS, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(cidr), e.getMessage());
        assertEquals(0, resolver.totalCalls());
    }

    @ParameterizedTest
    @CsvSource({
        "http://8.8.8.8/, http://8.8.8.8:80/",
        "http://010.0.0.1/x, http://8.0.0.1:80/x",
        "https://[2606:4700::1111]/, https://[2606:4700:0:0:0:0:0:1111]:443/",
    })
    void publicLiteralsArePinnedToThemselves(String url, String connectUri) {
        PinnedUrl pinned = guard.pin(UrlGuard.parse(url));
        assertEquals(connectUri, pinned.connectUri().toString());
        assertEquals(0, resolver.totalCalls());
    }

    @Test
    void nameResolvingToPrivateAddressIsBlockedNamingHostAddressAndRange() {
        resolver.answer("intranet.test", "10.1.2.3");
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> guard.pin(UrlGuard.parse("http://intranet.test/")));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertTrue(e.getMessage().contains("\"intranet.test\""), e.getMessage());
        assertTrue(e.getMessage().contains("10.1.2.3"), e.getMessage());
        assertTrue(e.getMessage().contains("10.0.0.0/8 (Private-Use, RFC 1918)"), e.getMessage());
    }

    @Test
    void nameResolvingToAnyPrivateAddressIsBlocked() {
        resolver.answer("mixed.test", "8.8.8.8", "2606:4700::1111", "fd00::1");
        FetchException e =
                assertThrows(
                        FetchException.class,
                        () -> guard.pin(UrlGuard.parse("http://mixed.test/")));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertTrue(e.getMessage().contains("fd00::1"), e.getMessage());
        assertEquals(1, resolver.calls("mixed.test"));
    }

    @Test
    void resolvedMappedLoopbackIsBlocked() throws Exception {
        // A resolver can hand back an Inet6Address holding mapped bytes; the JDK's own would
        // have made it an Inet4Address. Both are refused.
        byte[] mapped = IpLiterals.parseIpv6("::ffff:127.0.0.1");
        HostResolver v6 =
                host -> java.util.List.of(java.net.Inet6Address.getByAddress(null, mapped, -1));
        UrlGuard g = new UrlGuard(v6, false, Set.of());
        FetchException e =
                assertThrows(FetchException.class, () -> g.pin(UrlGuard.parse("http://m.test/")));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
        assertTrue(e.getMessage().contains("::ffff:0:0/96"), e.getMessage());
    }

    @Test
    void publicNameIsResolvedOnceAndPinnedToTheFirstAddress() {
        resolver.answer("example.test", "93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c");
        PinnedUrl pinned = guard.pin(UrlGuard.parse("https://Example.test:8443/a?b"));
        assertEquals(CountingResolver.literal("93.184.215.14"), pinned.address());
        assertEquals("https://93.184.215.14:8443/a?b", pinned.connectUri().toString());
        assertEquals("example.test:8443", pinned.url().authority());
        assertEquals(1, resolver.calls("example.test"));
    }

    @Test
    void unresolvableAndEmptyAnswersAreNetworkErrors() {
        FetchException unknown =
                assertThrows(
                        FetchException.class, () -> guard.pin(UrlGuard.parse("http://nx.test/")));
        assertEquals(Code.NETWORK, unknown.code());
        UrlGuard empty = new UrlGuard(host -> java.util.List.of(), false, Set.of());
        FetchException none =
                assertThrows(
                        FetchException.class, () -> empty.pin(UrlGuard.parse("http://e.test/")));
        assertEquals(Code.NETWORK, none.code());
    }

    @Test
    void allowPrivateNetworkLiftsOnlyTheAddressCheck() {
        UrlGuard open = new UrlGuard(resolver, true, Set.of());
        resolver.answer("intranet.test", "10.1.2.3");
        assertEquals(
                CountingResolver.literal("10.1.2.3"),
                open.pin(UrlGuard.parse("http://intranet.test/")).address());
        assertEquals(
                CountingResolver.literal("127.0.0.1"),
                open.pin(UrlGuard.parse("http://127.1/")).address());
        assertEquals(
                Code.BAD_URL,
                assertThrows(FetchException.class, () -> UrlGuard.parse("ftp://127.0.0.1/"))
                        .code());
        assertEquals(
                Code.BAD_URL,
                assertThrows(FetchException.class, () -> UrlGuard.parse("http://a:b@127.0.0.1/"))
                        .code());
    }

    @Test
    void exemptAddressLetsOnlyThatAddressThrough() throws Exception {
        UrlGuard g = new UrlGuard(resolver, false, Set.of(InetAddress.getByName("127.0.0.1")));
        assertEquals(
                CountingResolver.literal("127.0.0.1"),
                g.pin(UrlGuard.parse("http://127.0.0.1:8080/")).address());
        FetchException e =
                assertThrows(
                        FetchException.class, () -> g.pin(UrlGuard.parse("http://127.0.0.2/")));
        assertEquals(Code.BLOCKED_ADDRESS, e.code());
    }

    @ParameterizedTest
    @CsvSource({
        "/next, http://a.test:8080/next",
        "next?x=1, http://a.test:8080/dir/next?x=1",
        "//b.test/p, http://b.test/p",
        "https://c.test/, https://c.test/",
        "http://c.test/ü, http://c.test/%C3%BC",
    })
    void redirectLocationsResolveAgainstTheCurrentUrl(String location, String expected) {
        ParsedUrl base = UrlGuard.parse("http://a.test:8080/dir/page");
        assertEquals(expected, UrlGuard.resolveRedirect(base, location).toString());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"ftp://a.test/", "http://u:p@a.test/", "http://a.test:25/", "http://[x]/"})
    void badRedirectLocationsAreBadUrl(String location) {
        ParsedUrl base = UrlGuard.parse("http://a.test/");
        FetchException e =
                assertThrows(FetchException.class, () -> UrlGuard.resolveRedirect(base, location));
        assertEquals(Code.BAD_URL, e.code());
    }
}
