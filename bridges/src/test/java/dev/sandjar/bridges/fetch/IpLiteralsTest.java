package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpLiteralsTest {

    @ParameterizedTest
    @CsvSource({
        "127.0.0.1, 127.0.0.1",
        "2130706433, 127.0.0.1",
        "127.1, 127.0.0.1",
        "127.0.1, 127.0.0.1",
        "0x7f.1, 127.0.0.1",
        "0X7F.0.0.1, 127.0.0.1",
        "0x7f000001, 127.0.0.1",
        "0177.0.0.1, 127.0.0.1",
        "0177.1, 127.0.0.1",
        "017700000001, 127.0.0.1",
        "0x7f.0.0.0x1, 127.0.0.1",
        "127.0.0.1., 127.0.0.1",
        "0, 0.0.0.0",
        "0x, 0.0.0.0",
        "010.0.0.1, 8.0.0.1",
        "10.0.0.1, 10.0.0.1",
        "4294967295, 255.255.255.255",
        "169.254.43518, 169.254.169.254",
        "0xa9fea9fe, 169.254.169.254",
    })
    void ipv4FormsParseLikeTheWhatwgUrlParser(String host, String expected) {
        assertTrue(IpLiterals.endsInNumber(host), host);
        assertEquals(expected, IpLiterals.format(IpLiterals.parseIpv4(host)));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "4294967296",
                "1.2.3.4.5",
                "256.0.0.1",
                "1.256.0.1",
                "1.2.65536",
                "1.16777216",
                "09.0.0.1",
                "1..2",
                "0x1g.1",
                "99999999999999999999999",
            })
    void numericHostsThatAreNotAddressesAreErrors(String host) {
        assertTrue(IpLiterals.endsInNumber(host), host);
        assertThrows(IllegalArgumentException.class, () -> IpLiterals.parseIpv4(host));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"example.com", "1.2.3.example", "0x7f.example", "a.0xg", "localhost", "a.."})
    void namesDoNotEndInANumber(String host) {
        assertFalse(IpLiterals.endsInNumber(host), host);
    }

    @ParameterizedTest
    @CsvSource({
        "::1, ::1",
        "::, ::",
        "1::, 1::",
        "fe80::1, fe80::1",
        "FE80:0:0:0:0:0:0:1, fe80::1",
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
        "::ffff:127.0.0.1, ::ffff:7f00:1",
        "::ffff:7f00:1, ::ffff:7f00:1",
        "1:2:3:4:5:6:7:8, 1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4, 1:2:3:4:5:6:102:304",
        "64:ff9b::127.0.0.1, 64:ff9b::7f00:1",
        "1:0:0:2:0:0:0:3, 1:0:0:2::3",
    })
    void ipv6ParsesAndFormatsCanonically(String text, String canonical) {
        assertEquals(canonical, IpLiterals.format(IpLiterals.parseIpv6(text)));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1:2:3:4:5:6:7:8:9",
                ":::",
                "1::2::3",
                "12345::",
                "::g",
                "1:2:3:4:5:6:7",
                "::1.2.3",
                "::1.2.3.256",
                "1:2:3:4:5:6:7::8",
                "1:2:3:4:5:6:7:1.2.3.4",
                ":1::",
                "",
            })
    void invalidIpv6IsRefused(String text) {
        assertThrows(IllegalArgumentException.class, () -> IpLiterals.parseIpv6(text));
    }
}
