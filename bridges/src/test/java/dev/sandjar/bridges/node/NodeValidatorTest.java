package dev.sandjar.bridges.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.fetch.FetchConfig;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link NodeValidator} through the real engine: the table of bodies and their expected diagnostics
 * (validation-cases.txt), then what the messages say and how globals are found.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeValidatorTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    private static final NodeValidator.ImportCheck SERVED_PACK_ONLY =
            s -> s.equals("served-pack") ? null : "no installed pack serves it";

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** One body of the table, with what the node declares (null: not declared) and expects. */
    record Case(
            String title,
            List<String> inputs,
            List<String> streams,
            List<String> outputs,
            String code,
            List<String> expected) {
        @Override
        public String toString() {
            return title;
        }

        NodeValidator validator() {
            NodeValidator.Builder b = NodeValidator.builder().withImportCheck(SERVED_PACK_ONLY);
            if (inputs != null) {
                b.withInputs(inputs);
            }
            if (streams != null) {
                b.withStreams(streams);
            }
            if (outputs != null) {
                b.withOutputs(outputs);
            }
            return b.build();
        }
    }

    static Stream<Case> cases() throws IOException {
        String text;
        try (InputStream in = NodeValidatorTest.class.getResourceAsStream("validation-cases.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> cases = new ArrayList<>();
        String[] blocks = text.split("(?m)^## ");
        for (String block : Arrays.asList(blocks).subList(1, blocks.length)) {
            List<String> lines = new ArrayList<>(block.lines().toList());
            while (lines.get(lines.size() - 1).isBlank()) {
                lines.remove(lines.size() - 1);
            }
            String title = lines.remove(0);
            List<String> inputs = null;
            List<String> streams = null;
            List<String> outputs = null;
            while (lines.get(0).startsWith("% ")) {
                String header = lines.remove(0).substring(2);
                int colon = header.indexOf(':');
                List<String> names =
                        Arrays.stream(header.substring(colon + 1).split(","))
                                .map(String::trim)
                                .filter(n -> !n.isEmpty())
                                .toList();
                switch (header.substring(0, colon)) {
                    case "inputs" -> inputs = names;
                    case "streams" -> streams = names;
                    case "outputs" -> outputs = names;
                    default -> throw new IllegalStateException(title + ": header " + header);
                }
            }
            String last = lines.remove(lines.size() - 1);
            if (!last.startsWith("=> ")) {
                throw new IllegalStateException(title + ": no '=> ' line");
            }
            String want = last.substring(3).trim();
            List<String> expected =
                    want.equals("none")
                            ? List.of()
                            : Arrays.stream(want.split(",")).map(String::trim).toList();
            cases.add(
                    new Case(title, inputs, streams, outputs, String.join("\n", lines), expected));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void findsWhatTheTableExpects(Case c) {
        List<NodeDiagnostic> found = c.validator().validate(sandbox, c.code());
        List<String> actual =
                found.stream().map(d -> d.line() + ":" + d.column() + " " + d.code()).toList();
        assertEquals(c.expected(), actual, () -> c.title() + "\n" + c.code() + "\n" + found);
    }

    @Test
    void theTableCoversEveryCodeButNotAnalyzed() throws IOException {
        Set<String> covered =
                cases().flatMap(c -> c.expected().stream())
                        .map(e -> e.substring(e.indexOf(' ') + 1))
                        .collect(java.util.stream.Collectors.toSet());
        Set<String> all =
                Set.of(
                        NodeDiagnostic.SYNTAX_ERROR,
                        NodeDiagnostic.TOP_LEVEL_EXPORT,
                        NodeDiagnostic.UNRESOLVED_IMPORT,
                        NodeDiagnostic.DYNAMIC_IMPORT,
                        NodeDiagnostic.REQUIRE_CALL,
                        NodeDiagnostic.INPUT_AS_GLOBAL,
                        NodeDiagnostic.UNDEFINED_NAME,
                        NodeDiagnostic.UNDECLARED_INPUT,
                        NodeDiagnostic.STREAMED_INPUT_ON_INPUTS,
                        NodeDiagnostic.UNDECLARED_STREAM,
                        NodeDiagnostic.UNDECLARED_OUTPUT,
                        NodeDiagnostic.UNWRITTEN_OUTPUT,
                        NodeDiagnostic.LEGACY_BODY);
        assertEquals(all, covered);
    }

    private static NodeDiagnostic only(NodeValidator v, String code) {
        List<NodeDiagnostic> found = v.validate(sandbox, code);
        assertEquals(1, found.size(), () -> found.toString());
        return found.get(0);
    }

    @Test
    void messagesSayWhatToDo() {
        NodeValidator v =
                NodeValidator.builder()
                        .withInputs(List.of("rows", "limit"))
                        .withStreams(List.of("numbers"))
                        .withOutputs(List.of("row", "total"))
                        .withImportCheck(s -> "install the pack 'left-pad' (npm i left-pad)")
                        .build();
        String ok = "\nawait emit('row', 1); await output('total', 2);";
        assertEquals(
                "1:1 input-as-global rows is not defined: inputs are not globals, they live on"
                        + " the inputs object; read inputs.rows",
                only(v, "rows;" + ok).toString());
        assertTrue(
                only(v, "inputs.limt;" + ok)
                        .message()
                        .endsWith("the declared inputs are limit, numbers, rows"),
                "names the declared inputs, streamed ones too");
        assertTrue(
                only(v, "await emit('rows', 1);" + ok)
                        .message()
                        .startsWith(
                                "emit(\"rows\", ...) names an output handle the node does not"
                                        + " declare; the declared outputs are row, total"));
        assertTrue(
                only(v, "await stream.first('nums');" + ok)
                        .message()
                        .startsWith("stream.first(\"nums\") reads an input the node does not"));
        assertTrue(
                only(v, "for await (const n of stream('numbers')) {}\ninputs.numbers;" + ok)
                        .message()
                        .contains("read it with stream(\"numbers\")"));
        assertTrue(
                only(v, "consol.log(1);" + ok).message().endsWith("did you mean console?"),
                "suggests the global a typo is close to");
        assertEquals(
                "import \"left-pad\": install the pack 'left-pad' (npm i left-pad)",
                only(v, "import pad from 'left-pad';" + ok).message());
        NodeDiagnostic unwritten = only(v, "await emit('row', 1);");
        assertEquals(NodeDiagnostic.Severity.WARNING, unwritten.severity());
        assertTrue(unwritten.message().contains("\"total\""), unwritten.message());
        NodeDiagnostic syntax = only(v, "const = 1;");
        assertEquals("1:7 syntax-error invalid JavaScript: Unexpected token", syntax.toString());
        assertTrue(syntax.isError());
    }

    @Test
    void withoutDeclaredInputsAnUndefinedNameHintsAtInputs() {
        NodeDiagnostic d = only(NodeValidator.builder().build(), "await output('x', rows);");
        assertEquals(NodeDiagnostic.UNDEFINED_NAME, d.code());
        assertTrue(d.message().endsWith("or if it is an input read inputs.rows"), d.message());
    }

    @Test
    void theGrantedBridgesDecideTheGlobals() {
        String code = "await output('page', await fetch('https://example.com'));";
        try (Fetch fetch = Fetch.create(FetchConfig.builder().build())) {
            NodeValidator granted =
                    NodeValidator.builder()
                            .withBridges(Capabilities.builder().fetch(fetch).build())
                            .build();
            assertEquals(List.of(), granted.validate(sandbox, code));
        }
        NodeValidator withheld =
                NodeValidator.builder()
                        .withBridges(Capabilities.builder().withhold("console").build())
                        .build();
        assertEquals(
                NodeDiagnostic.UNDEFINED_NAME,
                only(withheld, "console.log(1); await output('x', 1);").code());
    }

    @Test
    void theProbeFindsTheEnginesGlobalsOnceForABridgeSet() {
        Set<String> globals = NodeValidator.probeGlobals(sandbox, Capabilities.defaults());
        for (String name :
                List.of("Math", "JSON", "Promise", "globalThis", "console", "sleep", "progress")) {
            assertTrue(globals.contains(name), name);
        }
        assertTrue(globals.contains("hasOwnProperty"), "the global object's prototype counts");
        assertFalse(globals.contains("inputs"), "the node's own names come from the node");
        assertSame(globals, NodeValidator.probeGlobals(sandbox, Capabilities.defaults()));
    }

    @Test
    void givenGlobalsAreExactPlusTheNodesOwn() {
        NodeValidator v = NodeValidator.builder().withGlobals(Set.of("helper")).build();
        assertEquals(
                List.of(),
                v.validate(sandbox, "await output('x', helper(inputs.a, state, stream.any()));"));
        assertEquals(
                NodeDiagnostic.UNDEFINED_NAME, only(v, "await output('x', Math.max(1));").code());
    }

    @Test
    void declaredNamesAreCheckedWhereTheyAreSet() {
        assertThrows(
                InvalidRequestException.class,
                () -> NodeValidator.builder().withInputs(List.of("a", "")));
        assertThrows(
                IllegalArgumentException.class,
                () -> new NodeDiagnostic("x", NodeDiagnostic.Severity.ERROR, "m", -1, 0));
    }
}
