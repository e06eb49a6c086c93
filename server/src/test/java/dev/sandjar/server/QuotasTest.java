package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A token file's quotas: the defaults a policy that names none gets (capped by the server's
 * bounds), the fields it may name, and the bounds it may not pass.
 */
class QuotasTest {
    @TempDir Path dir;

    private static Policy base(int serverSessions) {
        return new Policy(
                Set.of("console"),
                Set.of(),
                5_000,
                64,
                Optional.empty(),
                8,
                Quotas.bounds(serverSessions));
    }

    private Tokens load(String policies, Policy base) throws IOException {
        Path file = dir.resolve("tokens.json");
        StringBuilder tokens = new StringBuilder("{\"tokens\": [");
        String[] each = policies.split("\\|");
        for (int i = 0; i < each.length; i++) {
            tokens.append(i == 0 ? "" : ", ")
                    .append("{\"name\": \"t")
                    .append(i)
                    .append("\", \"sha256\": \"")
                    .append(ServerAuthTest.sha256Hex("token-" + i))
                    .append("\"")
                    .append(each[i].isEmpty() ? "" : ", \"policy\": " + each[i])
                    .append("}");
        }
        Files.writeString(file, tokens.append("]}").toString());
        return Tokens.load(file, base);
    }

    @Test
    void aPolicyThatNamesNoQuotaGetsTheDefaultsUnderTheServersBounds() throws IOException {
        Tokens t = load("|{\"maxTimeoutMs\": 100}|{\"maxSessions\": 3}", base(100));
        assertEquals(Quotas.DEFAULTS, t.all().get(0).policy().quotas());
        assertEquals(Quotas.DEFAULTS, t.all().get(1).policy().quotas());
        assertEquals(
                new Quotas(
                        3, Quotas.DEFAULTS.maxSessionBytes(), Quotas.DEFAULTS.maxForksPerMinute()),
                t.all().get(2).policy().quotas());
        // a server that holds fewer sessions than the default caps it
        assertEquals(5, load("", base(5)).all().get(0).policy().quotas().maxSessions());
        Quotas named =
                load(
                                "{\"maxSessions\": 2, \"maxSessionBytes\": 1000,"
                                        + " \"maxForksPerMinute\": 7}",
                                base(100))
                        .all()
                        .get(0)
                        .policy()
                        .quotas();
        assertEquals(new Quotas(2, 1000, 7), named);
    }

    @Test
    void aQuotaOutsideItsBoundsOrAMisspelledOneFailsNamingIt() {
        IllegalArgumentException over =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> load("{\"maxSessions\": 101}", base(100)));
        assertTrue(over.getMessage().contains("tokens[0]"), over.getMessage());
        assertTrue(
                over.getMessage()
                        .contains("maxSessions (101) must be between 1 and the server's bound 100"),
                over.getMessage());
        IllegalArgumentException zero =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> load("{\"maxForksPerMinute\": 0}", base(100)));
        assertTrue(zero.getMessage().contains("maxForksPerMinute (0)"), zero.getMessage());
        IllegalArgumentException typo =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> load("{\"maxSessionsBytes\": 10}", base(100)));
        assertTrue(typo.getMessage().contains("'maxSessionsBytes'"), typo.getMessage());
        assertTrue(typo.getMessage().contains("maxSessionBytes"), typo.getMessage());
    }
}
