package dev.sandjar.quickjs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.quickjs.testing.EngineLeakCheck;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Engine images: an engine's state over a base snapshot, carried to another engine of the same
 * build through bytes, and refused over a base of another shape or with more handles open.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EngineLeakCheck.class)
class EngineImageTest {
    /** The same deterministic setup on any engine: a runtime, a context, one held function. */
    private record Base(EngineSnapshot snapshot, JsContext context, JsValue read) {}

    private static Base base(QuickJsEngine e) {
        JsRuntime rt = e.newRuntime();
        JsContext ctx = rt.newContext();
        JsValue read = ctx.evalScript("() => globalThis.state", "read.js").orThrow();
        return new Base(e.snapshot(), ctx, read);
    }

    @Test
    void anImageMovesTheHeapToAnotherEngineThroughBytes() throws IOException {
        byte[] bytes;
        try (QuickJsEngine first = QuickJsEngine.create()) {
            bytes =
                    first.call(
                            e -> {
                                Base b = base(e);
                                b.context()
                                        .evalScript(
                                                "globalThis.state = { list: [1, 2, 3], text:"
                                                        + " 'x'.repeat(300000) }; 0",
                                                "set.js")
                                        .orThrow()
                                        .close();
                                EngineImage image = e.captureImage(b.snapshot());
                                assertTrue(image.heldBytes() > 300_000, "" + image.heldBytes());
                                assertEquals(QuickJsEngine.buildId(), image.buildId());
                                ByteArrayOutputStream out = new ByteArrayOutputStream();
                                try {
                                    image.write(out);
                                } catch (IOException ex) {
                                    throw new IllegalStateException(ex);
                                }
                                return out.toByteArray();
                            });
        }
        EngineImage read = EngineImage.read(new ByteArrayInputStream(bytes));
        try (QuickJsEngine second = QuickJsEngine.create()) {
            second.call(
                    e -> {
                        Base b = base(e);
                        e.restoreImage(b.snapshot(), read);
                        try (JsResult r = b.context().call(b.read(), b.context().undefined());
                                JsValue list = r.value().get("list");
                                JsValue text = r.value().get("text");
                                JsValue len = text.get("length");
                                JsValue n = list.get("length")) {
                            assertEquals(3.0, n.asNumber());
                            assertEquals(300000.0, len.asNumber());
                        }
                        // the restored heap goes on working, and the base still restores
                        b.context()
                                .evalScript("state.list.push(4); 0", "push.js")
                                .orThrow()
                                .close();
                        e.restore(b.snapshot());
                        try (JsResult r = b.context().call(b.read(), b.context().undefined())) {
                            assertEquals("undefined", r.value().typeOf());
                        }
                        return null;
                    });
        }
    }

    @Test
    void anImageIsRefusedOverAnotherBaseOrWithHandlesOpen() {
        try (QuickJsEngine engine = QuickJsEngine.create()) {
            engine.call(
                    e -> {
                        Base b = base(e);
                        JsValue extra = b.context().newString("held");
                        IllegalStateException open =
                                assertThrows(
                                        IllegalStateException.class,
                                        () -> e.captureImage(b.snapshot()));
                        assertTrue(
                                open.getMessage().contains("handles are open"), open.getMessage());
                        extra.close();
                        EngineImage image = e.captureImage(b.snapshot());
                        // another shape: one more handle held in the base
                        JsValue more = b.context().newString("base");
                        EngineSnapshot other = e.snapshot();
                        IllegalArgumentException shape =
                                assertThrows(
                                        IllegalArgumentException.class,
                                        () -> e.restoreImage(other, image));
                        assertTrue(
                                shape.getMessage().contains("another shape"), shape.getMessage());
                        more.close();
                        return null;
                    });
        }
    }

    @Test
    void damagedBytesAreRefusedBeforeAnythingLarge() {
        IOException magic =
                assertThrows(
                        IOException.class,
                        () -> EngineImage.read(new ByteArrayInputStream(new byte[] {1, 2, 3, 4})));
        assertTrue(magic.getMessage().contains("not an engine image"), magic.getMessage());
        byte[] header = {0x53, 0x4a, 0x49, 0x4d, 0, 0, 0, 9};
        IOException format =
                assertThrows(
                        IOException.class,
                        () -> EngineImage.read(new ByteArrayInputStream(header)));
        assertTrue(format.getMessage().contains("format 9"), format.getMessage());
    }
}
