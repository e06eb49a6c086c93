package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import dev.sandjar.quickjs.testing.Fuzz;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the fetch guard's parsers (docs/bridges.md "fetch"): {@link UrlGuard#parse} and {@link
 * UrlGuard#resolveRedirect} on URLs built from grammar pieces (schemes, userinfo, IPv4 in every
 * numeric form, IPv6 with zones and embedded IPv4, ports, paths, unicode), {@link IpLiterals} and
 * {@link AddressClassifier} on raw addresses. A refusal is a {@link FetchException}; an accepted
 * URL must be normalised and parse to itself again; a pinned address must be public by an
 * independent table check, and a host handed to the resolver must not be a number. Tries: {@link
 * Fuzz}.
 */
class UrlFuzzTest {
    private static final List<String> SCHEMES =
            List.of("http://", "https://", "HTTP://", "ftp://", "file://", "http:/", "http:", "");

    private static final List<String> HOSTS =
            List.of(
                    "example.com",
                    "EXAMPLE.com.",
                    "localhost",
                    "127.0.0.1",
                    "127.1",
                    "0x7f.1",
                    "0177.0.0.1",
                    "2130706433",
                    "0x7f000001",
                    "017700000001",
                    "1.2.3.4.",
                    "4294967296",
                    "0",
                    "10.0.0.1",
                    "169.254.169.254",
                    "100.64.0.1",
                    "93.184.216.34",
                    "[::1]",
                    "[::ffff:127.0.0.1]",
                    "[::ffff:7f00:1]",
                    "[64:ff9b::127.0.0.1]",
                    "[2002:7f00:1::]",
                    "[fe80::1%25eth0]",
                    "[fe80::1%eth0]",
                    "[2606:4700:4700::1111]",
                    "[::]",
                    "[0:0:0:0:0:0:0:1]",
                    "xn--bcher-kva.example",
                    "b\u00fccher.example",
                    "a_b.example",
                    "a..b",
                    "1.2.3.a1");

    private static final List<String> PIECES =
            List.of(
                    "user:pw@",
                    "@",
                    ":",
                    ":80",
                    ":0",
                    ":65536",
                    ":8080",
                    ":22",
                    "/",
                    "//",
                    "/../",
                    "/%2e%2e/",
                    "?",
                    "#",
                    "%",
                    "%00",
                    "%25",
                    "[",
                    "]",
                    ".",
                    "0x",
                    "0",
                    "\u0000",
                    "\t",
                    " ",
                    "\\",
                    "\u00e9",
                    "\uD800",
                    "\uFF0E",
                    "::",
                    "ffff",
                    "255");

    private static final List<String> PATHS =
            List.of("", "/", "/a/b?c=d", "/%7e?x#frag", "/\u00e9t\u00e9", "?q", "#f");

    private static final List<String> ADDRESSES =
            List.of(
                    "127.0.0.1",
                    "10.1.2.3",
                    "172.16.5.4",
                    "192.168.1.1",
                    "169.254.169.254",
                    "0.0.0.0",
                    "100.64.1.1",
                    "224.0.0.1",
                    "255.255.255.255",
                    "93.184.216.34",
                    "8.8.8.8",
                    "::1",
                    "::",
                    "::ffff:127.0.0.1",
                    "fe80::1",
                    "fc00::1",
                    "2001:db8::1",
                    "2606:4700:4700::1111",
                    "2002:c0a8:101::1",
                    "64:ff9b::a00:1");

    private static String url(Random r) {
        String u =
                Fuzz.pick(r, SCHEMES)
                        + (r.nextInt(8) == 0 ? Fuzz.pick(r, PIECES) : "")
                        + Fuzz.pick(r, HOSTS)
                        + (r.nextInt(3) == 0 ? Fuzz.pick(r, PIECES) : "")
                        + Fuzz.pick(r, PATHS);
        return r.nextInt(3) == 0 ? u : Fuzz.mutate(r, u, PIECES);
    }

    @Test
    void parseRefusesWithBadUrlOrGivesANormalisedUrl() {
        Fuzz.run("UrlGuard.parse", 5000, UrlFuzzTest::url, UrlFuzzTest::checkParse);
    }

    private static ParsedUrl checkParse(String url) {
        ParsedUrl p;
        try {
            p = UrlGuard.parse(url);
        } catch (FetchException e) {
            assertEquals(Code.BAD_URL, e.code(), e.getMessage());
            return null;
        }
        assertTrue(p.scheme().equals("http") || p.scheme().equals("https"), p.scheme());
        assertTrue(p.port() >= 1 && p.port() <= 65535, "port " + p.port());
        assertTrue(p.pathAndQuery().startsWith("/"), p.pathAndQuery());
        assertTrue(p.pathAndQuery().chars().allMatch(c -> c > 0x20 && c < 0x7f), p.pathAndQuery());
        if (p.isLiteral()) {
            assertTrue(p.literal().length == 4 || p.literal().length == 16);
            assertEquals(IpLiterals.format(p.literal()), p.host());
        } else {
            assertTrue(p.host().matches("[a-z0-9_-]+(\\.[a-z0-9_-]+)*"), Fuzz.show(p.host()));
            assertFalse(looksNumeric(p.host()), "a numeric host is a name: " + p.host());
        }
        assertNotNull(p.toUri());
        ParsedUrl again = UrlGuard.parse(p.toString());
        assertEquals(p.toString(), again.toString(), "a parsed URL parses differently");
        assertEquals(p.zone(), again.zone());
        if (p.isLiteral()) {
            assertArrayEquals(p.literal(), again.literal());
        }
        return p;
    }

    /** WHATWG: a host whose last label is a number (decimal or 0x hex) is an IPv4 address. */
    private static boolean looksNumeric(String host) {
        String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        String last = h.substring(h.lastIndexOf('.') + 1);
        return last.matches("[0-9]+") || last.matches("0[xX][0-9a-fA-F]*");
    }

    @Test
    void redirectsRefuseWithBadUrlOrGiveANormalisedUrl() {
        ParsedUrl base = UrlGuard.parse("https://example.com/a/b?c");
        Fuzz.run(
                "UrlGuard.resolveRedirect",
                3000,
                r -> r.nextBoolean() ? url(r) : Fuzz.mutate(r, Fuzz.pick(r, PATHS), PIECES),
                location -> {
                    try {
                        ParsedUrl p = UrlGuard.resolveRedirect(base, location);
                        checkParse(p.toString());
                    } catch (FetchException e) {
                        assertEquals(Code.BAD_URL, e.code(), e.getMessage());
                    }
                });
    }

    @Test
    void pinConnectsOnlyToPublicAddresses() {
        Fuzz.run(
                "UrlGuard.pin",
                3000,
                r -> {
                    List<String> answer = new ArrayList<>();
                    for (int i = 1 + r.nextInt(3); i > 0; i--) {
                        answer.add(Fuzz.pick(r, ADDRESSES));
                    }
                    return new Case(url(r), answer);
                },
                c -> {
                    ParsedUrl p;
                    try {
                        p = UrlGuard.parse(c.url());
                    } catch (FetchException e) {
                        return;
                    }
                    List<String> asked = new ArrayList<>();
                    HostResolver resolver =
                            host -> {
                                asked.add(host);
                                List<InetAddress> out = new ArrayList<>();
                                for (String a : c.answer()) {
                                    out.add(InetAddress.getByName(a));
                                }
                                return out;
                            };
                    UrlGuard guard = new UrlGuard(resolver, false, Set.of());
                    PinnedUrl pinned;
                    try {
                        pinned = guard.pin(p);
                    } catch (FetchException e) {
                        assertTrue(
                                e.code() == Code.BLOCKED_ADDRESS || e.code() == Code.BAD_URL,
                                e.toString());
                        return;
                    }
                    for (String host : asked) {
                        assertFalse(looksNumeric(host), "resolver asked for " + host);
                    }
                    byte[] connected = p.isLiteral() ? p.literal() : pinned.address().getAddress();
                    assertTrue(isPublic(connected), "pinned " + pinned);
                    if (!p.isLiteral()) {
                        for (String a : c.answer()) {
                            assertTrue(isPublic(literal(a)), "one answer is not public: " + a);
                        }
                    }
                });
    }

    private record Case(String url, List<String> answer) {
        @Override
        public String toString() {
            return Fuzz.show(url) + " resolving to " + answer;
        }
    }

    @Test
    void ipLiteralsAndClassifierAgreeWithTheJdkAndTheTable() {
        Fuzz.run(
                "IpLiterals+AddressClassifier",
                5000,
                r -> {
                    byte[] a = new byte[r.nextBoolean() ? 4 : 16];
                    r.nextBytes(a);
                    byte[] seed = literal(Fuzz.pick(r, ADDRESSES));
                    if (r.nextBoolean() && seed.length == a.length) {
                        System.arraycopy(seed, 0, a, 0, a.length - 1 - r.nextInt(a.length / 2));
                    }
                    return a;
                },
                a -> {
                    String text = IpLiterals.format(a);
                    byte[] back =
                            a.length == 4 ? IpLiterals.parseIpv4(text) : IpLiterals.parseIpv6(text);
                    assertArrayEquals(a, back, text);
                    byte[] jdk = literal(text);
                    assertArrayEquals(
                            jdk.length == a.length
                                    ? a
                                    : java.util.Arrays.copyOfRange(a, 12, 16), // ::ffff:a.b.c.d
                            jdk,
                            "the JDK reads " + text + " differently");
                    assertEquals(
                            isPublic(a),
                            AddressClassifier.classify(a).isEmpty(),
                            "classified " + text + " as " + AddressClassifier.classify(a));
                });
    }

    @Test
    void numericHostFormsOfLoopbackAreRefused() {
        for (String host :
                List.of(
                        "127.1",
                        "0x7f.1",
                        "0177.0.0.1",
                        "2130706433",
                        "0x7f000001",
                        "017700000001",
                        "127.0.0.1.",
                        "[::ffff:127.0.0.1]",
                        "[::1]")) {
            ParsedUrl p = UrlGuard.parse("http://" + host + "/");
            assertTrue(p.isLiteral(), host);
            FetchException e =
                    org.junit.jupiter.api.Assertions.assertThrows(
                            FetchException.class,
                            () -> new UrlGuard(h -> List.of(), false, Set.of()).pin(p));
            assertEquals(Code.BLOCKED_ADDRESS, e.code(), host);
        }
    }

    @Test
    void anIpv6ZoneSurvivesNormalisationAndRedirects() {
        // Found by parseRefusesWithBadUrlOrGivesANormalisedUrl: toString() dropped the zone, so
        // the normalised URL parsed to another URL and a relative redirect lost the interface.
        ParsedUrl p = UrlGuard.parse("https://[fe80::1%25eth0]/a/b?c=d");
        assertEquals("https://[fe80::1%25eth0]/a/b?c=d", p.toString());
        assertEquals("eth0", UrlGuard.parse(p.toString()).zone());
        assertEquals("eth0", UrlGuard.resolveRedirect(p, "/next").zone());
        assertEquals("[fe80::1]", p.authority()); // the Host header never carries the zone
    }

    // ---------------------------------------------------------------------------------------
    // The special-purpose table, checked again without AddressClassifier's code.

    private static final List<String> SPECIAL =
            List.of(
                    "0.0.0.0/8",
                    "10.0.0.0/8",
                    "100.64.0.0/10",
                    "127.0.0.0/8",
                    "169.254.0.0/16",
                    "172.16.0.0/12",
                    "192.0.0.0/24",
                    "192.0.2.0/24",
                    "192.88.99.0/24",
                    "192.168.0.0/16",
                    "198.18.0.0/15",
                    "198.51.100.0/24",
                    "203.0.113.0/24",
                    "224.0.0.0/3",
                    "::/128",
                    "::1/128",
                    "::ffff:0:0/96",
                    "::ffff:0:0:0/96",
                    "64:ff9b::/96",
                    "64:ff9b:1::/48",
                    "100::/64",
                    "2001::/32",
                    "2001:2::/48",
                    "2001:10::/28",
                    "2001:20::/28",
                    "2001:db8::/32",
                    "2002::/16",
                    "3fff::/20",
                    "5f00::/16",
                    "fc00::/7",
                    "fe80::/10",
                    "fec0::/10",
                    "ff00::/8",
                    "::/3",
                    "4000::/2",
                    "8000::/1");

    private static byte[] literal(String text) {
        try {
            return InetAddress.getByName(text.contains(":") ? "[" + text + "]" : text).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** Outside every block of the table (an IPv4-mapped address counts as IPv6: refused). */
    static boolean isPublic(byte[] address) {
        BigInteger a = new BigInteger(1, address);
        for (String cidr : SPECIAL) {
            int slash = cidr.indexOf('/');
            String net = cidr.substring(0, slash);
            int bits = Integer.parseInt(cidr.substring(slash + 1));
            boolean v6 = net.contains(":");
            int width = v6 ? 128 : 32;
            if (v6 != (address.length == 16)) {
                continue;
            }
            BigInteger n = v6 ? new BigInteger(1, ipv6Bytes(net)) : new BigInteger(1, literal(net));
            if (a.shiftRight(width - bits).equals(n.shiftRight(width - bits))) {
                return false;
            }
        }
        return true;
    }

    /** The JDK turns "::ffff:a.b.c.d" into 4 bytes; the table means the 16. */
    private static byte[] ipv6Bytes(String net) {
        if (net.startsWith("::ffff:0:0") && !net.startsWith("::ffff:0:0:0")) {
            byte[] b = new byte[16];
            b[10] = (byte) 0xff;
            b[11] = (byte) 0xff;
            return b;
        }
        return literal(net);
    }
}
