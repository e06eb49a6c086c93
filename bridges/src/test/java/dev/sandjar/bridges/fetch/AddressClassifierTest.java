package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class AddressClassifierTest {

    static Stream<SpecialRange> everyRange() {
        return Stream.concat(AddressClassifier.IPV4.stream(), AddressClassifier.IPV6.stream());
    }

    /** Both ends of every block classify into that block, or into a block nested inside it. */
    @ParameterizedTest
    @MethodSource("everyRange")
    void firstAndLastAddressOfEveryRangeAreRefused(SpecialRange range) {
        byte[] first = prefix(range);
        byte[] last = first.clone();
        int bits = bits(range);
        for (int bit = bits; bit < last.length * 8; bit++) {
            last[bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
        for (byte[] address : List.of(first, last)) {
            Optional<SpecialRange> found = AddressClassifier.classify(address);
            assertTrue(found.isPresent(), IpLiterals.format(address) + " should be in " + range);
            assertTrue(
                    contains(range, found.get()),
                    IpLiterals.format(address)
                            + " classified as "
                            + found.get()
                            + ", outside "
                            + range);
        }
    }

    /** A middle address that no nested block covers classifies as the block itself. */
    @ParameterizedTest
    @MethodSource("everyRange")
    void eachRangeIsReportedByName(SpecialRange range) {
        byte[] address = prefix(range);
        // Set the last bit of the address: no nested block in the table starts at it.
        if (bits(range) < address.length * 8) {
            address[address.length - 1] |= 1;
        }
        Optional<SpecialRange> found = AddressClassifier.classify(address);
        assertTrue(found.isPresent());
        if (!Set.of("::/96", "::/3").contains(range.cidr())) {
            assertEquals(range, found.get());
        }
    }

    @Test
    void tableHasNoDuplicateBlocks() {
        Set<String> seen = new HashSet<>();
        everyRange().forEach(r -> assertTrue(seen.add(r.cidr()), "duplicate " + r.cidr()));
    }

    @ParameterizedTest
    @CsvSource({
        "8.8.8.8",
        "1.1.1.1",
        "9.255.255.255",
        "11.0.0.0",
        "100.63.255.255",
        "100.128.0.0",
        "126.255.255.255",
        "128.0.0.0",
        "169.253.255.255",
        "169.255.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.1.255",
        "192.0.3.0",
        "192.88.98.255",
        "192.88.100.0",
        "192.167.255.255",
        "192.169.0.0",
        "198.17.255.255",
        "198.20.0.0",
        "198.51.99.255",
        "198.51.101.0",
        "203.0.112.255",
        "203.0.114.0",
        "223.255.255.255",
        "2606:4700:4700::1111",
        "2001:4860:4860::8888",
        "2a00:1450:4001::200e",
        "2001:1::1",
        "2001:3::1",
        "2001:db7:ffff::1",
        "2001:db9::1",
        "2003::1",
        "3ffe:ffff::1",
        "3fff:1000::1",
        "2001:30::1",
    })
    void publicAddressesAreNotClassified(String text) {
        byte[] address =
                text.contains(":") ? IpLiterals.parseIpv6(text) : IpLiterals.parseIpv4(text);
        assertEquals(Optional.empty(), AddressClassifier.classify(address), text);
    }

    @ParameterizedTest
    @CsvSource({
        "0.0.0.0, 0.0.0.0/8",
        "10.1.2.3, 10.0.0.0/8",
        "100.64.0.1, 100.64.0.0/10",
        "127.0.0.1, 127.0.0.0/8",
        "169.254.169.254, 169.254.0.0/16",
        "172.31.255.255, 172.16.0.0/12",
        "192.0.0.9, 192.0.0.0/24",
        "192.88.99.1, 192.88.99.0/24",
        "198.19.0.1, 198.18.0.0/15",
        "239.255.255.250, 224.0.0.0/4",
        "255.255.255.254, 240.0.0.0/4",
        "255.255.255.255, 255.255.255.255/32",
        "::, ::/128",
        "::1, ::1/128",
        "::ffff:127.0.0.1, ::ffff:0:0/96",
        "::ffff:8.8.8.8, ::ffff:0:0/96",
        "::127.0.0.1, ::/96",
        "::ffff:0:7f00:1, ::ffff:0:0:0/96",
        "64:ff9b::7f00:1, 64:ff9b::/96",
        "64:ff9b:1::1, 64:ff9b:1::/48",
        "100::1, 100::/64",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2, 2001::/32",
        "2001:2::1, 2001:2::/48",
        "2001:10::1, 2001:10::/28",
        "2001:2f::1, 2001:20::/28",
        "2001:db8::1, 2001:db8::/32",
        "2002:7f00:1::1, 2002::/16",
        "2002:808:808::1, 2002::/16",
        "3fff::1, 3fff::/20",
        "5f00::1, 5f00::/16",
        "fd00::2, fc00::/7",
        "fc00::1, fc00::/7",
        "fe80::1, fe80::/10",
        "febf::1, fe80::/10",
        "fec0::1, fec0::/10",
        "ff02::1, ff00::/8",
        "1::, ::/3",
        "4000::1, 4000::/2",
        "e000::1, 8000::/1",
    })
    void specialAddressesNameTheirRange(String text, String cidr) {
        byte[] address =
                text.contains(":") ? IpLiterals.parseIpv6(text) : IpLiterals.parseIpv4(text);
        assertEquals(cidr, AddressClassifier.classify(address).orElseThrow().cidr(), text);
    }

    @Test
    void jdkTurnsMappedTextIntoIpv4AndItIsStillRefused() throws Exception {
        InetAddress parsed = InetAddress.getByName("::ffff:127.0.0.1");
        assertInstanceOf(Inet4Address.class, parsed);
        assertEquals("127.0.0.0/8", AddressClassifier.classify(parsed).orElseThrow().cidr());
    }

    @Test
    void inet6AddressHoldingMappedBytesIsRefusedAsMapped() throws Exception {
        byte[] mapped = IpLiterals.parseIpv6("::ffff:8.8.8.8");
        InetAddress address = Inet6Address.getByAddress(null, mapped, -1);
        assertInstanceOf(Inet6Address.class, address);
        assertArrayEquals(mapped, address.getAddress());
        assertEquals("::ffff:0:0/96", AddressClassifier.classify(address).orElseThrow().cidr());
    }

    private static byte[] prefix(SpecialRange range) {
        String text = range.cidr().substring(0, range.cidr().indexOf('/'));
        return text.contains(":") ? IpLiterals.parseIpv6(text) : IpLiterals.parseIpv4(text);
    }

    private static int bits(SpecialRange range) {
        return Integer.parseInt(range.cidr().substring(range.cidr().indexOf('/') + 1));
    }

    private static boolean contains(SpecialRange outer, SpecialRange inner) {
        byte[] a = prefix(outer);
        byte[] b = prefix(inner);
        if (a.length != b.length || bits(inner) < bits(outer)) {
            return false;
        }
        for (int bit = 0; bit < bits(outer); bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }
}
