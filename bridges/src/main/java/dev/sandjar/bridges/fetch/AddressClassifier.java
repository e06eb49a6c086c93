package dev.sandjar.bridges.fetch;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * Says which special-purpose block, if any, an address belongs to. Every block in the table is
 * refused by the fetch guard; an address in none of them is public.
 *
 * <p>The table follows the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890), taking
 * each block whole even where the registry marks a small sub-block globally reachable (for example
 * the anycast addresses inside 192.0.0.0/24). IPv6 adds the three blocks outside 2000::/3, the only
 * space IANA has allocated for global unicast, so nothing unallocated is reachable either. The
 * JDK's {@code InetAddress.isXxx} predicates cover only a handful of these and are not used.
 *
 * <p>Classification works on address bytes. An {@code Inet6Address} may hold an IPv4-mapped address
 * ({@code ::ffff:a.b.c.d}) and is classified as IPv6, which refuses the whole mapped block; the
 * JDK's parser and resolver turn mapped text into an {@code Inet4Address}, which is then classified
 * by its IPv4 address, so {@code ::ffff:127.0.0.1} is refused as loopback either way. When blocks
 * nest, the most specific one is reported.
 */
final class AddressClassifier {
    static final List<SpecialRange> IPV4 =
            List.of(
                    new SpecialRange("0.0.0.0/8", "This network", "RFC 791"),
                    new SpecialRange("10.0.0.0/8", "Private-Use", "RFC 1918"),
                    new SpecialRange("100.64.0.0/10", "Shared Address Space (CGNAT)", "RFC 6598"),
                    new SpecialRange("127.0.0.0/8", "Loopback", "RFC 1122"),
                    new SpecialRange("169.254.0.0/16", "Link-Local", "RFC 3927"),
                    new SpecialRange("172.16.0.0/12", "Private-Use", "RFC 1918"),
                    new SpecialRange("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"),
                    new SpecialRange("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
                    new SpecialRange("192.88.99.0/24", "6to4 Relay Anycast", "RFC 7526"),
                    new SpecialRange("192.168.0.0/16", "Private-Use", "RFC 1918"),
                    new SpecialRange("198.18.0.0/15", "Benchmarking", "RFC 2544"),
                    new SpecialRange("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
                    new SpecialRange("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
                    new SpecialRange("224.0.0.0/4", "Multicast", "RFC 5771"),
                    new SpecialRange("240.0.0.0/4", "Reserved", "RFC 1112"),
                    new SpecialRange("255.255.255.255/32", "Limited Broadcast", "RFC 919"));

    static final List<SpecialRange> IPV6 =
            List.of(
                    new SpecialRange("::/128", "Unspecified Address", "RFC 4291"),
                    new SpecialRange("::1/128", "Loopback Address", "RFC 4291"),
                    new SpecialRange("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291"),
                    new SpecialRange("::/96", "IPv4-compatible Address", "RFC 4291"),
                    new SpecialRange("::ffff:0:0:0/96", "IPv4-translated Address", "RFC 2765"),
                    new SpecialRange("64:ff9b::/96", "IPv4-IPv6 Translation (NAT64)", "RFC 6052"),
                    new SpecialRange(
                            "64:ff9b:1::/48", "Local-use IPv4-IPv6 Translation", "RFC 8215"),
                    new SpecialRange("100::/64", "Discard-Only Address Block", "RFC 6666"),
                    new SpecialRange("2001::/32", "TEREDO", "RFC 4380"),
                    new SpecialRange("2001:2::/48", "Benchmarking", "RFC 5180"),
                    new SpecialRange("2001:10::/28", "ORCHID (deprecated)", "RFC 4843"),
                    new SpecialRange("2001:20::/28", "ORCHIDv2", "RFC 7343"),
                    new SpecialRange("2001:db8::/32", "Documentation", "RFC 3849"),
                    new SpecialRange("2002::/16", "6to4", "RFC 3056"),
                    new SpecialRange("3fff::/20", "Documentation", "RFC 9637"),
                    new SpecialRange("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
                    new SpecialRange("fc00::/7", "Unique-Local", "RFC 4193"),
                    new SpecialRange("fe80::/10", "Link-Local Unicast", "RFC 4291"),
                    new SpecialRange("fec0::/10", "Site-Local (deprecated)", "RFC 3879"),
                    new SpecialRange("ff00::/8", "Multicast", "RFC 4291"),
                    new SpecialRange("::/3", "Outside global unicast 2000::/3", "RFC 4291"),
                    new SpecialRange("4000::/2", "Outside global unicast 2000::/3", "RFC 4291"),
                    new SpecialRange("8000::/1", "Outside global unicast 2000::/3", "RFC 4291"));

    private record Block(byte[] prefix, int bits, SpecialRange range) {
        boolean contains(byte[] address) {
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (address[whole] & mask) == (prefix[whole] & mask);
        }
    }

    private static final List<Block> IPV4_BLOCKS =
            IPV4.stream().map(AddressClassifier::block).toList();
    private static final List<Block> IPV6_BLOCKS =
            IPV6.stream().map(AddressClassifier::block).toList();

    private AddressClassifier() {}

    /**
     * The most specific special-purpose block holding {@code address}, or empty if it is public.
     */
    static Optional<SpecialRange> classify(InetAddress address) {
        return classify(address.getAddress());
    }

    /** As {@link #classify(InetAddress)}, for 4 or 16 address bytes. */
    static Optional<SpecialRange> classify(byte[] address) {
        List<Block> blocks;
        if (address.length == 4) {
            blocks = IPV4_BLOCKS;
        } else if (address.length == 16) {
            blocks = IPV6_BLOCKS;
        } else {
            throw new IllegalArgumentException(
                    "an address has 4 or 16 bytes, not " + address.length);
        }
        Block best = null;
        for (Block block : blocks) {
            if (block.contains(address) && (best == null || block.bits > best.bits)) {
                best = block;
            }
        }
        return best == null ? Optional.empty() : Optional.of(best.range);
    }

    private static Block block(SpecialRange range) {
        String cidr = range.cidr();
        int slash = cidr.indexOf('/');
        String text = cidr.substring(0, slash);
        byte[] prefix =
                text.contains(":") ? IpLiterals.parseIpv6(text) : IpLiterals.parseIpv4(text);
        int bits = Integer.parseInt(cidr.substring(slash + 1));
        if (bits < 0 || bits > prefix.length * 8) {
            throw new IllegalStateException("bad prefix length in " + cidr);
        }
        for (int bit = bits; bit < prefix.length * 8; bit++) {
            if ((prefix[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                throw new IllegalStateException(cidr + " has bits set past its prefix length");
            }
        }
        return new Block(prefix, bits, range);
    }
}
