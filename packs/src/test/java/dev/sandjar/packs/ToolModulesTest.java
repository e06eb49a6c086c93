package dev.sandjar.packs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.ModuleResolution;
import dev.sandjar.host.Operation;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolModulesTest {
    private static Bridge bridge(String name, String... ops) {
        Bridge.Builder b = Bridge.builder(name).guest("(host) => ({})");
        for (String op : ops) {
            b.operation(Operation.builder(op).handler(c -> null).build());
        }
        return b.build();
    }

    @Test
    void aNamespaceModuleIsAFacadeOverItsOwnBridge() {
        Bridge web = bridge("agent.tools.web", "web_search", "fetch_page");
        ModuleResolution.Module m =
                ToolModules.module("web", List.of("web_search", "fetch_page"), web);
        assertEquals("@sandjar/tools/web", m.name());
        assertEquals(List.of(web), m.bridges());
        assertTrue(
                m.source().contains("import host from \"sandjar:bridge/agent.tools.web\";"),
                m.source());
        assertTrue(
                m.source()
                        .contains(
                                "export async function web_search(...args) {\n"
                                        + "  return host.call(\"web_search\", ...args);\n}"),
                m.source());
        assertTrue(
                m.source().contains("export default Object.freeze({ web_search, fetch_page });"));
    }

    @Test
    void namesAreChecked() {
        assertEquals("web", ToolModules.namespaceOf("@sandjar/tools/web"));
        assertNull(ToolModules.namespaceOf("@sandjar/tools/Web"));
        assertNull(ToolModules.namespaceOf("@sandjar/diff"));
        assertTrue(ToolModules.namespaceProblem("a_b") != null);
        assertTrue(ToolModules.toolNameProblem("delete").contains("reserved"));
        assertThrows(
                InvalidRequestException.class,
                () -> ToolModules.module("web", List.of("x"), bridge("agent.tools.other", "x")));
        assertThrows(
                InvalidRequestException.class,
                () -> ToolModules.module("web", List.of("y"), bridge("agent.tools.web", "x")));
    }
}
