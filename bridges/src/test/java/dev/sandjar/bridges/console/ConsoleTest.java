package dev.sandjar.bridges.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.host.Limits;
import dev.sandjar.host.LogEntry;
import dev.sandjar.host.RunError;
import dev.sandjar.host.RunRequest;
import dev.sandjar.host.RunResult;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import dev.sandjar.transport.Undefined;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * console.* through real runs: levels, Node-like formatting, substitutions, hostile values, caps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(1);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    private static RunResult run(String code) {
        return sandbox.run(RunRequest.builder(code).bridge(Console.bridge()).build());
    }

    /** The messages the run logged, one per console call. */
    private static List<String> lines(String code) {
        RunResult r = run(code);
        r.valueOrThrow();
        return r.logs().stream().map(LogEntry::message).toList();
    }

    @Test
    void eachMethodLogsAtItsLevelInOrderAndLive() {
        List<LogEntry> live = Collections.synchronizedList(new ArrayList<>());
        RunResult r =
                sandbox.run(
                        RunRequest.builder(
                                        "console.log('l'); console.info('i'); console.warn('w');"
                                                + " console.error('e'); console.debug('d');\n"
                                                + "const { log } = console; log('detached');\n"
                                                + "return console.log('x');")
                                .bridge(Console.bridge())
                                .onLog(live::add)
                                .build());
        assertEquals(Undefined.INSTANCE, r.valueOrThrow(), "console.log returns undefined");
        assertEquals(
                List.of(
                        "[log] l",
                        "[info] i",
                        "[warn] w",
                        "[error] e",
                        "[debug] d",
                        "[log] detached",
                        "[log] x"),
                r.logs().stream().map(LogEntry::toString).toList());
        assertTrue(r.logs().stream().allMatch(e -> e.source().equals("guest")));
        assertEquals(r.logs(), live);
    }

    @Test
    void primitivesPrintBareAtTopLevelAndQuotedInside() {
        assertEquals(
                List.of(
                        "text 42 -0 10n true null undefined Symbol(s) 1.5 NaN -Infinity",
                        "[ 'text', \"it's\", 'say \"hi\"', 'a\\nb\\t\\x01', -0, 10n ]",
                        "[Function: named] [Function (anonymous)] [class K] [AsyncFunction: af]"
                                + " [GeneratorFunction: g] [Function: max]"),
                lines(
                        "console.log('text', 42, -0, 10n, true, null, undefined, Symbol('s'), 1.5,"
                                + " NaN, -Infinity);\n"
                                + "console.log(['text', \"it's\", 'say \"hi\"', 'a\\n"
                                + "b\\t\\x01', -0, 10n]);\n"
                                + "console.log(function named() {}, () => {}, class K {}, async"
                                + " function af() {}, function* g() {}, Math.max);"));
    }

    @Test
    void objectsPrintTheWayNodeDoes() {
        List<String> lines =
                lines(
                        "class Point { constructor() { this.x = 1; this.y = 2; } }\n"
                                + "console.log({ a: 1, b: 'two', c: [1, 2], 'not-ident': true,"
                                + " [Symbol('k')]: 3 });\n"
                                + "console.log([], {}, [ , , 1], new Array(3), Object.create(null),"
                                + " new Point());\n"
                                + "console.log(new Map([['a', 1], [{ k: 1 }, [2]]]), new Set([1,"
                                + " 'x']), new Map(), new WeakMap());\n"
                                + "console.log(new Date(0), new Date(NaN), /ab+c/gi, new Number(3),"
                                + " new String('s'), Promise.resolve(1));\n"
                                + "console.log(new Uint8Array([1, 2, 3]), new Float64Array(2),"
                                + " new BigInt64Array([5n]), new ArrayBuffer(3), new DataView(new"
                                + " ArrayBuffer(4)));\n"
                                + "console.log({ a: { b: { c: { d: 1 } } }, e: { f: {} } });\n"
                                + "const arr = [1, 2]; arr.extra = 'yes'; console.log(arr);\n"
                                + "console.log({ get g() { return 1; }, set s(v) {}, get gs() {"
                                + " return 1; }, set gs(v) {} });");
        assertEquals(
                List.of(
                        "{ a: 1, b: 'two', c: [ 1, 2 ], 'not-ident': true, [Symbol(k)]: 3 }",
                        "[] {} [ <2 empty items>, 1 ] [ <3 empty items> ] [Object: null"
                                + " prototype] {} Point { x: 1, y: 2 }",
                        "Map(2) { 'a' => 1, { k: 1 } => [ 2 ] } Set(2) { 1, 'x' } Map(0) {}"
                                + " WeakMap { <items unknown> }",
                        "1970-01-01T00:00:00.000Z Invalid Date /ab+c/gi [Number: 3] [String:"
                                + " 's'] Promise { <state unknown> }",
                        "Uint8Array(3) [ 1, 2, 3 ] Float64Array(2) [ 0, 0 ] BigInt64Array(1) ["
                                + " 5n ] ArrayBuffer { [Uint8Contents]: <00 00 00>, byteLength: 3"
                                + " } DataView { byteLength: 4, byteOffset: 0 }",
                        "{ a: { b: { c: [Object] } }, e: { f: {} } }",
                        "[ 1, 2, extra: 'yes' ]",
                        "{ g: [Getter], s: [Setter], gs: [Getter/Setter] }"),
                lines);
    }

    @Test
    void longObjectsBreakIntoIndentedLinesAndNumberArraysIntoColumns() {
        List<String> lines =
                lines(
                        "console.log({ first: 'a'.repeat(30), second: 'b'.repeat(30), third: {"
                                + " nested: true } });\n"
                                + "console.log(Array.from({ length: 26 }, (_, i) => i * 4));");
        assertEquals(
                "{\n"
                        + "  first: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n"
                        + "  second: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',\n"
                        + "  third: { nested: true }\n"
                        + "}",
                lines.get(0));
        // Node's column layout: 8 columns for these widths, each as wide as its widest entry.
        assertEquals(
                "[\n"
                        + "   0,   4,  8, 12, 16, 20, 24, 28,\n"
                        + "  32,  36, 40, 44, 48, 52, 56, 60,\n"
                        + "  64,  68, 72, 76, 80, 84, 88, 92,\n"
                        + "  96, 100\n"
                        + "]",
                lines.get(1));
    }

    @Test
    void cyclesDepthAndSizeAreCapped() {
        List<String> lines =
                lines(
                        "const a = { name: 'a' }; a.self = a; a.list = [a];\n"
                            + "console.log(a);\n"
                            + "console.log(Array.from({ length: 150 }, () => 'item').length,"
                            + " Array.from({ length: 150 }, () => ({})));\n"
                            + "console.log(['x'.repeat(10005)]);\n"
                            + "console.log(new Set(Array.from({ length: 101 }, (_, i) => i)));\n"
                            + "console.log(new Uint8Array(60).buffer);");
        assertEquals("{ name: 'a', self: [Circular], list: [ [Circular] ] }", lines.get(0));
        assertTrue(lines.get(1).startsWith("150 [\n  {}, {},"), lines.get(1));
        assertTrue(lines.get(1).endsWith("  ... 50 more items\n]"), lines.get(1));
        assertTrue(lines.get(2).endsWith("x'... 5 more characters\n]"), lines.get(2));
        assertTrue(lines.get(3).contains("  ... 1 more item\n}"), lines.get(3));
        assertTrue(lines.get(4).contains("... 10 more bytes>"), lines.get(4));
    }

    @Test
    void errorsShowTheirStackAndExtraProperties() {
        List<String> lines =
                lines(
                        "function fail() { const e = new TypeError('bad thing'); e.code = 'E_BAD';"
                                + " return e; }\n"
                                + "console.log(fail());\n"
                                + "console.log({ err: new RangeError('inner') });\n"
                                + "console.error(new Error('outer', { cause: new Error('root')"
                                + " }));");
        String top = lines.get(0);
        assertTrue(top.startsWith("TypeError: bad thing\n    at fail (main.js:1:"), top);
        assertTrue(top.endsWith("{\n  code: 'E_BAD'\n}"), top);
        assertEquals("{ err: [RangeError: inner] }", lines.get(1));
        assertTrue(lines.get(2).startsWith("Error: outer\n    at "), lines.get(2));
        assertTrue(lines.get(2).endsWith("[cause]: [Error: root]\n}"), lines.get(2));
    }

    @Test
    void printfSubstitutionsWorkLikeNodes() {
        assertEquals(
                List.of(
                        "Bob is 42.5 / 42 / 3.5 / {\"a\":[1]} / { b: 1 } / { c: 2 } / done 100%",
                        "%s stays with no arguments %d",
                        "a 1 extra { x: 1 }",
                        "-0 7n NaN [Circular] custom { plain: 1 }",
                        "missing %s"),
                lines(
                        "console.log('%s is %d / %i / %f / %j / %o / %O / %cdone 100%%', 'Bob',"
                            + " 42.5, 42.5, '3.5', { a: [1] }, { b: 1 }, { c: 2 }, 'color: red');\n"
                            + "console.log('%s stays with no arguments %d');\n"
                            + "console.log('%s %d', 'a', 1, 'extra', { x: 1 });\n"
                            + "const cyc = {}; cyc.cyc = cyc;\n"
                            + "console.log('%d %i %f %j %s %s', -0, 7n, Symbol('x'), cyc, {"
                            + " toString() { return 'custom'; } }, { plain: 1 });\n"
                            + "console.log('missing %s');"));
    }

    @Test
    void hostileValuesArePrintedSanelyAndGettersNeverRun() {
        List<String> lines =
                lines(
                        "let ran = 0;\n"
                                + "const throwing = { toString() { throw new Error('nope'); } };\n"
                                + "const trap = new Proxy({}, { ownKeys() { throw new"
                                + " Error('trap!'); } });\n"
                                + "const getter = { get g() { ran++; return 1; } };\n"
                                + "const badError = new Error('x'); Object.defineProperty(badError,"
                                + " 'stack', { get() { throw new Error('no stack'); } });\n"
                                + "console.log('%s|%d', throwing, { valueOf() { throw new"
                                + " Error('no number'); } });\n"
                                + "console.log('proxy', trap);\n"
                                + "console.log(getter, ran);\n"
                                + "console.log(badError);\n"
                                + "console.log(new Proxy([1, 2], {}));");
        assertEquals(
                List.of(
                        "[conversion threw Error: nope]|[conversion threw Error: no number]",
                        "proxy [object that cannot be inspected: Error: trap!]",
                        "{ g: [Getter] } 0",
                        "Error: x",
                        "[ 1, 2 ]"),
                lines);
    }

    @Test
    void aHostileToStringOnlyBurnsTheRunsOwnBudget() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder("console.log('%s', { toString() { for (;;) {} } });")
                                .bridge(Console.bridge())
                                .limits(Limits.builder().timeout(Duration.ofMillis(300)).build())
                                .build());
        assertEquals(RunError.Kind.TIMEOUT, r.error().kind());
        // The sandbox still serves.
        assertEquals(List.of("after"), lines("console.log('after');"));
    }

    @Test
    void aLineIsCutAt64KiBWithTheCountOfWhatWasCut() {
        List<String> lines =
                lines(
                        "console.log('x'.repeat(70000));\n"
                                + "console.log('y'.repeat(65535) + '\\u{1F600}' + 'z');\n"
                                + "console.log('w'.repeat(65536));");
        assertEquals("x".repeat(65536) + "... (4464 more characters)", lines.get(0));
        // A surrogate pair straddling the cut is not split: both halves go.
        assertEquals("y".repeat(65535) + "... (3 more characters)", lines.get(1));
        assertEquals("w".repeat(65536), lines.get(2));
    }

    @Test
    void theRunsLogCapsStillApply() {
        RunResult r =
                sandbox.run(
                        RunRequest.builder("for (let i = 0; i < 5; i++) console.log('line', i);")
                                .bridge(Console.bridge())
                                .limits(Limits.builder().logLines(3).build())
                                .build());
        assertEquals(4, r.logs().size());
        assertEquals("line 0", r.logs().get(0).message());
        assertEquals("sandjar", r.logs().get(3).source());
        assertTrue(r.logs().get(3).message().contains("logLines 3"), r.logs().get(3).message());
    }
}
