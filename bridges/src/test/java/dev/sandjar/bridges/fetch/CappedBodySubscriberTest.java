package dev.sandjar.bridges.fetch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

class CappedBodySubscriberTest {

    /** Records what the subscriber asks of its subscription. */
    static final class Probe implements Flow.Subscription {
        long requested;
        boolean cancelled;

        @Override
        public void request(long n) {
            requested += n;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static List<ByteBuffer> chunk(int size, int value) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) value);
        return List.of(ByteBuffer.wrap(bytes));
    }

    private static byte[] body(CappedBodySubscriber subscriber) throws Exception {
        return subscriber.getBody().toCompletableFuture().get();
    }

    @Test
    void asksForOneChunkAtATimeAndNeverAllocatesPastTheCap() throws Exception {
        CappedBodySubscriber subscriber = new CappedBodySubscriber(100_000, false, -1);
        Probe probe = new Probe();
        subscriber.onSubscribe(probe);
        assertEquals(1, probe.requested);
        for (int i = 0; i < 10; i++) {
            subscriber.onNext(chunk(10_000, i));
            assertTrue(subscriber.bufferCapacity() <= 100_000, "" + subscriber.bufferCapacity());
        }
        assertEquals(11, probe.requested);
        subscriber.onComplete();
        byte[] body = body(subscriber);
        assertEquals(100_000, body.length);
        assertEquals(9, body[99_999]);
        assertFalse(probe.cancelled);
    }

    @Test
    void oneByteOverTheCapFailsAndCancels() {
        CappedBodySubscriber subscriber = new CappedBodySubscriber(10, false, -1);
        Probe probe = new Probe();
        subscriber.onSubscribe(probe);
        subscriber.onNext(chunk(10, 1));
        subscriber.onNext(chunk(1, 2));
        assertTrue(probe.cancelled);
        CompletableFuture<byte[]> future = subscriber.getBody().toCompletableFuture();
        ExecutionException e = assertThrows(ExecutionException.class, future::get);
        assertEquals(
                Code.BODY_TOO_LARGE, assertInstanceOf(FetchException.class, e.getCause()).code());
    }

    @Test
    void declaredLengthOverTheCapFailsBeforeReading() {
        CappedBodySubscriber subscriber = new CappedBodySubscriber(10, false, 11);
        Probe probe = new Probe();
        subscriber.onSubscribe(probe);
        assertTrue(probe.cancelled);
        assertEquals(0, probe.requested);
        assertEquals(0, subscriber.bufferCapacity());
        assertTrue(subscriber.getBody().toCompletableFuture().isCompletedExceptionally());
    }

    @Test
    void truncationKeepsExactlyTheCapAndFlagsIt() throws Exception {
        CappedBodySubscriber subscriber = new CappedBodySubscriber(15, true, 1_000_000);
        Probe probe = new Probe();
        subscriber.onSubscribe(probe);
        assertEquals(15, subscriber.bufferCapacity());
        subscriber.onNext(chunk(10, 1));
        subscriber.onNext(chunk(10, 2));
        assertTrue(probe.cancelled);
        assertTrue(subscriber.truncated());
        byte[] expected = new byte[15];
        Arrays.fill(expected, 0, 10, (byte) 1);
        Arrays.fill(expected, 10, 15, (byte) 2);
        assertArrayEquals(expected, body(subscriber));
    }

    @Test
    void abortCancelsAPendingSubscriptionButNotAFinishedOne() {
        CappedBodySubscriber pending = new CappedBodySubscriber(10, false, -1);
        Probe live = new Probe();
        pending.onSubscribe(live);
        pending.abort();
        assertTrue(live.cancelled);

        CappedBodySubscriber finished = new CappedBodySubscriber(10, false, -1);
        Probe done = new Probe();
        finished.onSubscribe(done);
        finished.onComplete();
        finished.abort();
        assertFalse(done.cancelled, "a finished body's connection may be back in the pool");

        CappedBodySubscriber early = new CappedBodySubscriber(10, false, -1);
        early.abort();
        Probe late = new Probe();
        early.onSubscribe(late);
        assertTrue(late.cancelled);
    }
}
