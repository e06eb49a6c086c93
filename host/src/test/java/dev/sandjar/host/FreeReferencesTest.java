package dev.sandjar.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.CodeAnalysis.Reference;
import dev.sandjar.host.testing.SandboxExtension;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link CodeAnalysis#freeReferences()}: the scope walk over the parser's tree. */
class FreeReferencesTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private static List<String> free(String code) {
        return sandbox.analyzeReferences(code).freeReferences().stream()
                .map(Reference::name)
                .toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "return x | x",
                "const x = 1; return x | ''",
                "let a = 1; { let b = a; } return b | b",
                "function f(p) { return p + q } return f(1) | q",
                "if (true) { var v = 1 } return v | ''",
                "const f = ({ a, b: [c = d] }, ...rest) => a + c + rest.length; | d",
                "try { boom() } catch ({ message }) { return message } | boom",
                "for (const k of list) { use(k) } | list,use",
                "for (let i = 0; i < n; i++) {} return i | n,i",
                "class A extends B { m() { return A } static s = C } | B,C",
                "const o = { k: v, [w]: 1, x }; | v,w,x",
                "label: for (;;) { break label } | ''",
                "undeclared = 1 | undeclared",
                "[a, b] = [1, 2] | a,b",
                "switch (s) { case 1: let y = 2; return y } | s",
                "const g = function named() { return named }; | ''",
                "function outer() { return arguments.length } | ''",
                "hoisted(); function hoisted() {} | ''",
                "import m from 'pack'; return m | ''",
                "return typeof maybe === 'undefined' | maybe",
            })
    void findsTheFreeNames(String code, String expected) {
        List<String> want = expected.isEmpty() ? List.of() : List.of(expected.split(","));
        assertEquals(want, free(code), code);
    }

    @Test
    void recordsWhatTheCodeDoesWithAName() {
        List<Reference> refs =
                sandbox.analyzeReferences(
                                "const kept = inputs.rows.filter((r) => r.score >"
                                        + " inputs['limit']);\n"
                                        + "await emit(\"row\", kept[0]);\n"
                                        + "await output(name, 1);\n"
                                        + "const first = await stream.first(`numbers`);\n"
                                        + "return;\n"
                                        + "await emit('late', 2);")
                        .freeReferences();
        Reference rows = refs.get(0);
        assertEquals("inputs", rows.name());
        assertEquals("rows", rows.property());
        assertEquals(1, rows.line());
        assertEquals(14, rows.column());
        assertEquals("limit", refs.get(1).property());
        Reference emit = refs.get(2);
        assertTrue(emit.called());
        assertEquals("row", emit.argument());
        assertEquals(2, emit.line());
        assertEquals(7, emit.column());
        Reference output = refs.get(3);
        assertTrue(output.dynamicArgument());
        assertNull(output.argument());
        Reference stream = refs.get(5);
        assertEquals("stream", stream.name());
        assertEquals("first", stream.property());
        assertEquals("numbers", stream.argument());
        assertTrue(stream.reachable());
        Reference late = refs.get(refs.size() - 1);
        assertEquals("late", late.argument());
        assertFalse(late.reachable());
    }

    @Test
    void typeofMarksAGuardNotAUse() {
        List<Reference> refs =
                sandbox.analyzeReferences(
                                "if (typeof fetch === 'function') return fetch('x'); return typeof"
                                        + " 1")
                        .freeReferences();
        assertTrue(refs.get(0).typeofOperand());
        assertFalse(refs.get(1).typeofOperand());
        assertEquals(2, refs.size());
    }

    @Test
    void aModuleWithExportsAndAScriptBothReport() {
        assertEquals(List.of("helper"), free("export const v = helper();"));
        assertTrue(sandbox.analyzeReferences("return stream('a')").mentions("stream"));
        assertFalse(
                sandbox.analyzeReferences("const stream = 1; return stream").mentions("stream"));
    }

    @Test
    void unknownWhenTheCodeDoesNotParseOrNestsTooDeeply() {
        assertNull(sandbox.analyzeReferences("return (").freeReferences());
        assertNull(sandbox.analyze("return x").freeReferences(), "only when asked for");
        String deep = "return " + "[".repeat(3_000) + "x" + "]".repeat(3_000);
        CodeAnalysis a = sandbox.analyzeReferences(deep);
        if (a.syntaxError()
                == null) { // the parser managed: the walk either did or said it could not
            assertTrue(a.freeReferences() == null || a.mentions("x"));
        }
    }
}
