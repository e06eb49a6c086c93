package dev.sandjar.bridges.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import dev.sandjar.host.Operation;
import dev.sandjar.host.RunError;
import dev.sandjar.host.Sandbox;
import dev.sandjar.host.testing.SandboxExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Code-node contract through the real engine. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CodeNodeTest {
    @RegisterExtension static final SandboxExtension SANDBOX = SandboxExtension.poolSize(2);

    static Sandbox sandbox;

    @BeforeAll
    static void start(Sandbox shared) {
        sandbox = shared;
    }

    /** Records events as they arrive. */
    static final class Events implements NodeListener {
        final List<NodeEvent> all = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onEvent(NodeEvent event) {
            all.add(event);
        }

        List<String> lines() {
            synchronized (all) {
                return all.stream().map(Events::line).toList();
            }
        }

        List<Object> emitted(String handle) {
            synchronized (all) {
                return all.stream()
                        .filter(e -> e instanceof NodeEvent.Emit m && m.handle().equals(handle))
                        .map(e -> ((NodeEvent.Emit) e).value())
                        .collect(Collectors.toList());
            }
        }

        static String line(NodeEvent e) {
            if (e instanceof NodeEvent.Emit m) {
                return "emit " + m.handle() + "=" + m.value();
            }
            if (e instanceof NodeEvent.Progress p) {
                return "progress " + (long) p.percent() + " " + p.message();
            }
            if (e instanceof NodeEvent.Log l) {
                return "log " + l.entry().message();
            }
            NodeEvent.Outputs o = (NodeEvent.Outputs) e;
            return "outputs " + o.outputs() + " state " + o.state();
        }
    }

    private static CodeNode node(String code, List<String> inputs, List<String> outputs) {
        return CodeNode.builder(sandbox, code).inputs(inputs).outputs(outputs).build();
    }

    @Test
    void theReferenceKeptRowsExampleStreamsRowsThenPostsTheCount() {
        CodeNode node =
                node(
                        "const kept = inputs.rows.filter((r) => r.score > inputs.threshold);\n"
                                + "progress(50, `kept ${kept.length}`);\n"
                                + "for (const row of kept) await emit(\"row\", row);\n"
                                + "await output(\"count\", kept.length);",
                        List.of("rows", "threshold"),
                        List.of("row", "count"));
        Events events = new Events();
        NodeResult r =
                node.run(
                        NodeInvocation.builder()
                                .jsonInput(
                                        "rows",
                                        "[{\"id\":1,\"score\":5},{\"id\":2,\"score\":15},"
                                                + "{\"id\":3,\"score\":25}]")
                                .input("threshold", 10)
                                .listener(events)
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertFalse(node.isLegacy());
        assertFalse(node.isStreaming());
        assertEquals(Map.of("count", 2L), r.outputs());
        assertEquals(
                List.of(
                        "progress 50 kept 2",
                        "emit row={id=2, score=15}",
                        "emit row={id=3, score=25}",
                        "outputs {count=2} state {}"),
                events.lines());
        assertEquals(2, r.emitted());
        assertTrue(r.warnings().isEmpty());
    }

    @Test
    void theReferenceRunningTotalReadsAStreamOnce() {
        CodeNode node =
                node(
                        "let sum = 0;\n"
                                + "for await (const n of stream(\"numbers\")) {\n"
                                + "  sum += n;\n"
                                + "  await emit(\"running\", sum);\n"
                                + "}\n"
                                + "await output(\"total\", sum);",
                        List.of("numbers"),
                        List.of("running", "total"));
        assertTrue(node.isStreaming());
        Events events = new Events();
        NodeResult r =
                node.run(
                        NodeInvocation.builder().stream(
                                        "numbers", NodeStream.of(List.of(1, 2, 3, 4)))
                                .listener(events)
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(1, r.invocations());
        assertEquals(List.of(1L, 3L, 6L, 10L), events.emitted("running"));
        assertEquals(Map.of("total", 10L), r.outputs());
    }

    @Test
    void aSlowListenerHoldsTheBodyAtItsNextEmit() throws Exception {
        AtomicInteger marks = new AtomicInteger();
        Bridge probe =
                Bridge.builder("probe")
                        .guest("(host) => ({ mark: () => host.call('mark') })")
                        .operation(
                                Operation.builder("mark")
                                        .handler(
                                                c -> {
                                                    marks.incrementAndGet();
                                                    return null;
                                                })
                                        .build())
                        .build();
        List<Bridge> bridges = new ArrayList<>(Capabilities.defaults());
        bridges.add(probe);
        CodeNode node =
                CodeNode.builder(
                                sandbox,
                                "for (let i = 0; i < 10; i++) { mark(); await emit('row', i); }")
                        .outputs("row")
                        .emitQueue(2)
                        .bridges(bridges)
                        .build();
        CountDownLatch release = new CountDownLatch(1);
        List<Object> seen = Collections.synchronizedList(new ArrayList<>());
        NodeExecution e =
                node.start(
                        NodeInvocation.builder()
                                .listener(
                                        ev -> {
                                            if (ev instanceof NodeEvent.Emit m) {
                                                seen.add(m.value());
                                                if (seen.size() == 1) {
                                                    await(release);
                                                }
                                            }
                                        })
                                .build());
        // The listener holds the first emit; two fit the queue (it counts until delivered), so
        // the body makes a third and waits there: three marks, and it stays at three.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (marks.get() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(300);
        assertEquals(3, marks.get());
        assertFalse(e.result().isDone());
        release.countDown();
        NodeResult r = e.result().get(60, TimeUnit.SECONDS);
        assertTrue(r.isOk(), r::toString);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), seen);
        assertEquals(10, marks.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSecondOutputOnOneHandleThrowsAndUndeclaredHandlesNameTheDeclaredOnes() {
        CodeNode node =
                node(
                        "await output('count', 1);\n"
                            + "const errors = [];\n"
                            + "try { await output('count', 2) } catch (e) { errors.push(e.message)"
                            + " }\n"
                            + "try { await emit('rows', 1) } catch (e) { errors.push(e.message) }\n"
                            + "try { await output('nope', 1) } catch (e) { errors.push(e.message)"
                            + " }\n"
                            + "try { stream('other') } catch (e) { errors.push(e.message) }\n"
                            + "await output('errors', errors);",
                        List.of("numbers"),
                        List.of("count", "errors", "row"));
        NodeResult r = node.run(NodeInvocation.builder().build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(1L, r.outputs().get("count"));
        assertEquals(
                List.of(
                        "output: 'count' already has its final value; a handle takes one output"
                                + " (emit streams any number)",
                        "emit: 'rows' is not a declared output; the outputs are [count, errors,"
                                + " row]",
                        "output: 'nope' is not a declared output; the outputs are [count, errors,"
                                + " row]",
                        "stream: 'other' is not a declared input; the inputs are [numbers]"),
                r.outputs().get("errors"));
    }

    @Test
    void aBodyThatThrowsKeepsItsEmitsAndDropsItsFinals() {
        CodeNode node =
                node(
                        "await emit('row', 1);\n"
                                + "await output('count', 1);\n"
                                + "throw new Error('late');",
                        List.of(),
                        List.of("row", "count"));
        Events events = new Events();
        NodeResult r = node.run(NodeInvocation.builder().listener(events).build());
        assertFalse(r.isOk());
        assertEquals(RunError.Kind.EXCEPTION, r.error().kind());
        assertEquals("late", r.error().message());
        assertEquals(List.of("emit row=1"), events.lines());
        assertTrue(r.outputs().isEmpty());
    }

    @Test
    void aLegacyBodyReturnsItsOutputsWithADeprecationWarning() {
        CodeNode node = node("return { count: inputs.n * 2 };", List.of("n"), List.of("count"));
        assertTrue(node.isLegacy());
        NodeResult r = node.run(NodeInvocation.builder().input("n", 21).build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(Map.of("count", 42L), r.outputs());
        assertEquals(List.of(NodeRunner.LEGACY_WARNING), r.warnings());

        NodeResult wrong =
                node("return { other: 1 };", List.of(), List.of("count", "x"))
                        .run(NodeInvocation.builder().build());
        assertEquals(
                "the body returned 'other', which is not a declared output; the outputs are"
                        + " [count, x]",
                wrong.error().message());
    }

    @Test
    void aReturnIsControlFlowInABodyThatUsesOutput() {
        CodeNode node =
                node(
                        "await output('count', 1);\nreturn { count: 2 };",
                        List.of(),
                        List.of("count"));
        NodeResult r = node.run(NodeInvocation.builder().build());
        assertEquals(Map.of("count", 1L), r.outputs());
        assertTrue(r.warnings().isEmpty());
    }

    @Test
    void stateSurvivesAcrossExecutionsOfOneWorkflowRun() {
        CodeNode node =
                node(
                        "state.seen = (state.seen ?? 0) + 1;\nawait output('seen', state.seen);",
                        List.of(),
                        List.of("seen"));
        NodeResult first = node.run(NodeInvocation.builder().build());
        NodeResult second = node.run(NodeInvocation.builder().state(first.state()).build());
        assertEquals(Map.of("seen", 2L), second.outputs());
        assertEquals(Map.of("seen", 2L), second.state());
        // a new workflow run starts from an empty state
        assertEquals(Map.of("seen", 1L), node.run(NodeInvocation.builder().build()).outputs());
    }

    @Test
    void anyInterleavesListsRoundRobinByIndex() {
        CodeNode node =
                node(
                        "let sum = 0;\n"
                                + "for await (const [handle, item] of stream.any()) {\n"
                                + "  sum += item;\n"
                                + "  await emit('seen', handle + ':' + item);\n"
                                + "}\n"
                                + "await output('sum', sum);",
                        List.of("a", "b"),
                        List.of("seen", "sum"));
        Events events = new Events();
        NodeResult r =
                node.run(
                        NodeInvocation.builder().stream("a", NodeStream.of(List.of(1, 2, 3)))
                                .stream("b", NodeStream.of(List.of(10, 20)))
                                .listener(events)
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(List.of("a:1", "b:10", "a:2", "b:20", "a:3"), events.emitted("seen"));
        assertEquals(Map.of("sum", 36L), r.outputs());
    }

    @Test
    void firstAndOpenReadOneItemAndConsumeNothing() {
        CodeNode node =
                node(
                        "const before = stream.open('x');\n"
                                + "const a = await stream.first('x');\n"
                                + "const b = await stream.first('x');\n"
                                + "const after = stream.open('x');\n"
                                + "const c = await stream.first('x');\n"
                                + "const unconnected = await stream.first('y');\n"
                                + "await output('r', [before, a, b, after, c === undefined,"
                                + " unconnected === undefined, stream.open('y')]);",
                        List.of("x", "y"),
                        List.of("r"));
        NodeResult r =
                node.run(
                        NodeInvocation.builder().stream("x", NodeStream.of(List.of("one", "two")))
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(List.of(true, "one", "two", false, true, true, false), r.outputs().get("r"));
    }

    @Test
    void waitingForItemsIsNotCountedAgainstTheBudget() throws Exception {
        CodeNode node =
                CodeNode.builder(
                                sandbox,
                                "let sum = 0;\n"
                                        + "for await (const n of stream('numbers')) sum += n;\n"
                                        + "await output('total', sum);")
                        .inputs("numbers")
                        .outputs("total")
                        .limits(
                                Limits.builder()
                                        .timeout(Duration.ofSeconds(1))
                                        .wallTimeout(Duration.ofSeconds(2))
                                        .build())
                        .build();
        NodeFeed feed = NodeStream.feed(4);
        NodeExecution e = node.start(NodeInvocation.builder().stream("numbers", feed).build());
        Thread producer =
                new Thread(
                        () -> {
                            try {
                                for (int i = 1; i <= 3; i++) {
                                    Thread.sleep(1_000); // 3 s in all: past the 2 s wall bound
                                    feed.put(i);
                                }
                                feed.end();
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                            }
                        });
        producer.start();
        NodeResult r = e.result().get(60, TimeUnit.SECONDS);
        producer.join();
        assertTrue(r.isOk(), r::toString);
        assertEquals(Map.of("total", 6L), r.outputs());
    }

    @Test
    void cancellingDuringATakeEndsTheRunAndReleasesTheProducer() throws Exception {
        CodeNode node =
                node(
                        "for await (const n of stream('numbers')) await emit('seen', n);",
                        List.of("numbers"),
                        List.of("seen"));
        NodeFeed feed = NodeStream.feed(1);
        Events events = new Events();
        NodeExecution e =
                node.start(
                        NodeInvocation.builder().stream("numbers", feed).listener(events).build());
        feed.put(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (events.emitted("seen").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of(1L), events.emitted("seen"));
        e.cancel(); // the body waits in a take now
        NodeResult r = e.result().get(30, TimeUnit.SECONDS);
        assertEquals(RunError.Kind.CANCELLED, r.error().kind());
        // a producer is never left blocked on a cancelled execution
        feed.put(2);
        feed.put(3);
        assertEquals(0, sandbox.leaks());
    }

    @Test
    void aBodyWithoutStreamRunsOncePerItemWithStateCarriedOver() {
        CodeNode node =
                node(
                        "state.total = (state.total ?? 0) + inputs.n * inputs.factor;\n"
                                + "await output('total', state.total);",
                        List.of("n", "factor"),
                        List.of("total"));
        assertFalse(node.isStreaming());
        Events events = new Events();
        NodeResult r =
                node.run(
                        NodeInvocation.builder().input("factor", 10).stream(
                                        "n", NodeStream.of(List.of(1, 2, 3)))
                                .listener(events)
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(3, r.invocations());
        assertEquals(Map.of("total", 60L), r.outputs());
        assertEquals(
                List.of(
                        "outputs {total=10} state {total=10}",
                        "outputs {total=30} state {total=30}",
                        "outputs {total=60} state {total=60}"),
                events.lines());
    }

    @Test
    void aStreamingBodyThatReadsAConnectedHandleThroughInputsFailsBeforeItRuns() {
        CodeNode node =
                node(
                        "const rows = inputs.rows;\nfor await (const r of stream('rows')) {}",
                        List.of("rows"),
                        List.of());
        NodeResult r =
                node.run(NodeInvocation.builder().stream("rows", NodeStream.of(List.of())).build());
        assertEquals(RunError.Kind.EXCEPTION, r.error().kind());
        assertEquals(1, r.error().line());
        assertEquals(14, r.error().column());
        assertTrue(r.error().message().contains("stream(\"rows\")"), r.error().message());
        assertEquals(0, r.invocations());
    }

    @Test
    void aPublisherIsReadOneItemPerTake() throws Exception {
        CodeNode node =
                node(
                        "const got = [];\n"
                                + "for await (const n of stream('numbers')) got.push(n);\n"
                                + "await output('got', got);",
                        List.of("numbers"),
                        List.of("got"));
        SubmissionPublisher<Object> publisher = new SubmissionPublisher<>();
        NodeExecution e =
                node.start(
                        NodeInvocation.builder().stream("numbers", NodeStream.from(publisher))
                                .build());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (publisher.getNumberOfSubscribers() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        for (int i = 0; i < 5; i++) {
            publisher.submit(i);
        }
        publisher.close(); // completes the stream once the items are read
        NodeResult r = e.result().get(30, TimeUnit.SECONDS);
        assertTrue(r.isOk(), r::toString);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), r.outputs().get("got"));
    }

    @Test
    void aFailedStreamThrowsInTheBodyNamingTheHandle() {
        CodeNode node =
                node(
                        "try { await stream.first('x') } catch (e) { await output('why', e.message)"
                                + " }",
                        List.of("x"),
                        List.of("why"));
        NodeFeed feed = NodeStream.feed(1);
        feed.fail("upstream went away");
        NodeResult r = node.run(NodeInvocation.builder().stream("x", feed).build());
        assertEquals(Map.of("why", "stream 'x' failed: upstream went away"), r.outputs());
    }

    @Test
    void emitsAndOutputsAreBoundedLikeAResult() {
        CodeNode node =
                CodeNode.builder(
                                sandbox,
                                "try { await emit('row', 'x'.repeat(5000)) } catch (e) {"
                                        + " await output('why', e.message) }")
                        .outputs("row", "why")
                        .limits(Limits.builder().outputBytes(1024).build())
                        .build();
        NodeResult r = node.run(NodeInvocation.builder().build());
        assertEquals(
                "emit: the value for 'row' is 5002 characters as JSON; the limit (outputBytes) is"
                        + " 1024",
                r.outputs().get("why"));
    }

    @Test
    void inputsArriveOnInputsAndAreDeepCopies() {
        CodeNode node =
                node(
                        "inputs.rows.push(99);\n"
                                + "await output('r', [typeof rows, inputs.rows.length,"
                                + " inputs.when instanceof Date]);",
                        List.of("rows", "when"),
                        List.of("r"));
        List<Object> rows = new ArrayList<>(List.of(1, 2));
        NodeResult r =
                node.run(
                        NodeInvocation.builder()
                                .input("rows", rows)
                                .input("when", java.time.Instant.parse("2026-12-03T00:00:00Z"))
                                .build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(List.of("undefined", 3L, true), r.outputs().get("r"));
        assertEquals(List.of(1, 2), rows);
    }

    @Test
    void anUndeclaredInputIsRefusedBeforeAnythingRuns() {
        CodeNode node = node("await output('x', 1)", List.of("a"), List.of("x"));
        InvalidRequestException e =
                assertThrows(
                        InvalidRequestException.class,
                        () -> node.start(NodeInvocation.builder().input("b", 1).build()));
        assertEquals(
                "the invocation gives a value for 'b', which is not a declared input; the inputs"
                        + " are [a]",
                e.getMessage());
    }

    @Test
    void nodePropertiesMapOntoLimitsAndGrants() {
        NodeProperties props = new NodeProperties(0, 1, false, false, Set.of("A"));
        CodeNode node =
                CodeNode.builder(
                                sandbox,
                                "let why;\n"
                                        + "try { getSecret('B') } catch (e) { why = e.message }\n"
                                        + "await output('seen', [secrets.list(), why]);")
                        .outputs("seen")
                        .limits(props.limits())
                        .bridges(
                                props.bridges(
                                        new NodeProperties.Grants(
                                                null,
                                                null,
                                                null,
                                                SecretStore.of(Map.of("A", "a-value", "B", "b")))))
                        .build();
        NodeResult r = node.run(NodeInvocation.builder().build());
        assertTrue(r.isOk(), r::toString);
        assertEquals(
                List.of(List.of("A"), "secret 'B' is outside this run's secret scope"),
                r.outputs().get("seen"));
        assertEquals(Limits.CEILINGS.timeout(), r.lastRun().limits().timeout()); // 0: none
        assertEquals(1L << 20, r.lastRun().limits().outputBytes());
        assertEquals(
                Duration.ofSeconds(5),
                new NodeProperties(5, 0, false, false, Set.of()).limits().timeout());
        InvalidRequestException noWorkspace =
                assertThrows(
                        InvalidRequestException.class,
                        () ->
                                new NodeProperties(5, 0, false, true, Set.of())
                                        .bridges(
                                                new NodeProperties.Grants(null, null, null, null)));
        assertEquals(
                "allow_host_filesystem needs a workspace; none is offered",
                noWorkspace.getMessage());
        assertThrows(
                InvalidRequestException.class,
                () -> new NodeProperties(-1, 0, false, false, Set.of()));
    }
}
