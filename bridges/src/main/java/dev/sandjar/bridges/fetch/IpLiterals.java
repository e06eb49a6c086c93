package dev.sandjar.bridges.fetch;

import java.math.BigInteger;
import java.util.Locale;

/**
 * Parses IP literals from URL hosts into bytes, without ever asking a resolver.
 *
 * <p>IPv4 follows the WHATWG URL host parser, which is also what {@code inet_aton}, curl and
 * browsers accept: one to four dot-separated parts, each decimal, {@code 0x} hex or {@code
 * 0}-prefixed octal, the last part filling the remaining bytes ({@code 2130706433}, {@code 127.1},
 * {@code 0x7f.1}, {@code 0177.0.0.1} are all 127.0.0.1). A host whose last label is numeric is an
 * IPv4 literal or an error, never a name to resolve. Note the JDK disagrees on octal: {@code
 * InetAddress.getByName("0177.0.0.1")} is 177.0.0.1. The guard never hands a numeric-looking host
 * to {@code InetAddress}, and connects to the bytes parsed here, so the interpretation checked is
 * the one used.
 *
 * <p>IPv6 is parsed here too (RFC 4291 text forms, with an optional dotted IPv4 tail) rather than
 * by {@code InetAddress}, which turns {@code ::ffff:a.b.c.d} into an {@code Inet4Address} and so
 * loses the fact that the guest wrote an IPv4-mapped address.
 */
final class IpLiterals {
    private static final BigInteger MAX_PART = BigInteger.valueOf(0xFFFF_FFFFL);

    private IpLiterals() {}

    /**
     * True when the host's last label is a number, which makes the host an IPv4 literal (or
     * invalid) under the WHATWG rules. {@code host} is lower case.
     */
    static boolean endsInNumber(String host) {
        String[] parts = host.split("\\.", -1);
        int last = parts.length - 1;
        if (parts[last].isEmpty()) {
            if (parts.length == 1) {
                return false;
            }
            last--;
        }
        String part = parts[last];
        if (!part.isEmpty() && part.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return true;
        }
        return parseNumber(part) != null;
    }

    /**
     * Parses an IPv4 literal in any form the WHATWG host parser accepts.
     *
     * @throws IllegalArgumentException with the reason, if it is not one
     */
    static byte[] parseIpv4(String host) {
        String[] parts = host.split("\\.", -1);
        int count = parts.length;
        if (count > 1 && parts[count - 1].isEmpty()) {
            count--;
        }
        if (count > 4) {
            throw new IllegalArgumentException("an IPv4 address has at most 4 parts");
        }
        long value = 0;
        for (int i = 0; i < count; i++) {
            BigInteger n = parseNumber(parts[i]);
            if (n == null) {
                throw new IllegalArgumentException(
                        "\"" + parts[i] + "\" is not a decimal, 0x hex or 0 octal number");
            }
            boolean lastPart = i == count - 1;
            BigInteger max =
                    lastPart ? BigInteger.ONE.shiftLeft(8 * (5 - count)) : BigInteger.valueOf(256);
            if (n.compareTo(max) >= 0) {
                throw new IllegalArgumentException(
                        "part \"" + parts[i] + "\" is out of range (must be < " + max + ")");
            }
            value = lastPart ? value | n.longValue() : value | (n.longValue() << (8 * (3 - i)));
        }
        return new byte[] {
            (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
        };
    }

    /** WHATWG "IPv4 number parser"; null on failure. A bare "0x" is 0. */
    private static BigInteger parseNumber(String part) {
        if (part.isEmpty()) {
            return null;
        }
        String digits = part.toLowerCase(Locale.ROOT);
        int radix = 10;
        if (digits.startsWith("0x")) {
            digits = digits.substring(2);
            radix = 16;
        } else if (digits.length() > 1 && digits.startsWith("0")) {
            digits = digits.substring(1);
            radix = 8;
        }
        if (digits.isEmpty()) {
            return BigInteger.ZERO;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), radix) < 0) {
                return null;
            }
        }
        BigInteger n = new BigInteger(digits, radix);
        // Anything past 32 bits is out of range for every part; cap it so callers compare cheaply.
        return n.compareTo(MAX_PART) > 0 ? MAX_PART.add(BigInteger.ONE) : n;
    }

    /**
     * Parses IPv6 text (no brackets, no zone) into 16 bytes.
     *
     * @throws IllegalArgumentException with the reason, if it is not an IPv6 address
     */
    static byte[] parseIpv6(String text) {
        if (text.isEmpty() || text.length() > 45) {
            throw new IllegalArgumentException("not an IPv6 address");
        }
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            throw new IllegalArgumentException("\"::\" may appear only once");
        }
        byte[] head = new byte[16];
        int headLength =
                gap < 0
                        ? parseGroups(text, head, true)
                        : parseGroups(text.substring(0, gap), head, false);
        if (gap < 0) {
            if (headLength != 16) {
                throw new IllegalArgumentException("an IPv6 address has 8 groups");
            }
            return head;
        }
        byte[] tail = new byte[16];
        int tailLength = parseGroups(text.substring(gap + 2), tail, true);
        if (headLength + tailLength > 14) {
            throw new IllegalArgumentException("\"::\" must stand for at least one group");
        }
        System.arraycopy(tail, 0, head, 16 - tailLength, tailLength);
        return head;
    }

    /** Parses colon-separated groups into {@code out}; returns the number of bytes written. */
    private static int parseGroups(String text, byte[] out, boolean ipv4TailAllowed) {
        if (text.isEmpty()) {
            return 0;
        }
        String[] groups = text.split(":", -1);
        int length = 0;
        for (int i = 0; i < groups.length; i++) {
            String group = groups[i];
            if (ipv4TailAllowed && i == groups.length - 1 && group.indexOf('.') >= 0) {
                byte[] v4 = parseDottedQuad(group);
                if (length + 4 > 16) {
                    throw new IllegalArgumentException("too many groups");
                }
                System.arraycopy(v4, 0, out, length, 4);
                return length + 4;
            }
            if (group.isEmpty() || group.length() > 4 || length + 2 > 16) {
                throw new IllegalArgumentException("bad group \"" + group + "\"");
            }
            int value = 0;
            for (int c = 0; c < group.length(); c++) {
                int digit = Character.digit(group.charAt(c), 16);
                if (digit < 0) {
                    throw new IllegalArgumentException("bad group \"" + group + "\"");
                }
                value = value * 16 + digit;
            }
            out[length++] = (byte) (value >>> 8);
            out[length++] = (byte) value;
        }
        return length;
    }

    /** The strict a.b.c.d form RFC 4291 allows at the end of an IPv6 address. */
    private static byte[] parseDottedQuad(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("bad IPv4 tail \"" + text + "\"");
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            String part = parts[i];
            if (part.isEmpty()
                    || part.length() > 3
                    || !part.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(part) > 255) {
                throw new IllegalArgumentException("bad IPv4 tail \"" + text + "\"");
            }
            out[i] = (byte) Integer.parseInt(part);
        }
        return out;
    }

    /** Formats 4 bytes as a dotted quad, 16 bytes in the RFC 5952 canonical IPv6 form. */
    static String format(byte[] address) {
        StringBuilder text = new StringBuilder();
        if (address.length == 4) {
            for (int i = 0; i < 4; i++) {
                text.append(i == 0 ? "" : ".").append(address[i] & 0xFF);
            }
            return text.toString();
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xFF) << 8) | (address[2 * i + 1] & 0xFF);
        }
        // The longest run of two or more zero groups, the first one on a tie, becomes "::".
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
