package dev.sandjar.quickjs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineGlueTest {

    private static String glue() throws IOException {
        try (InputStream in = EngineGlue.class.getResourceAsStream(EngineGlue.RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void everyImportIsRecognisedOnceAndEveryQtsFunctionIsMapped() {
        EngineGlue glue = EngineGlue.bundled();
        Set<String> names = new HashSet<>();
        for (EngineGlue.Import i : EngineGlue.Import.values()) {
            assertTrue(names.add(glue.importName(i)), "two imports share " + glue.importName(i));
        }
        assertEquals(21, names.size()); // 20 functions and the memory
        assertEquals(68, glue.exports().size(), "66 QTS_* functions plus malloc and free");
        glue.export("QTS_Eval");
        glue.export("malloc");
    }

    @Test
    void aMissingExportFailsLoudly() throws IOException {
        String broken = glue().replace("c._QTS_Eval=", "c._QTS_Renamed=");
        IllegalStateException e =
                assertThrows(
                        IllegalStateException.class,
                        () -> EngineGlue.parse(broken).export("QTS_Eval"));
        assertTrue(e.getMessage().contains("QTS_Eval"), e.getMessage());
    }

    @Test
    void anUnrecognisedImportFailsLoudly() throws IOException {
        String broken = glue().replace("callbacks.shouldInterrupt", "callbacks.somethingElse");
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> EngineGlue.parse(broken));
        assertTrue(e.getMessage().contains("HOST_INTERRUPT"), e.getMessage());
    }
}
