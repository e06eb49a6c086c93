package dev.sandjar.bridges.fetch;

import dev.sandjar.bridges.fetch.FetchException.Code;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Collects a response body into at most {@code cap} bytes, counted as they arrive.
 *
 * <p>Past the cap it either fails with {@link Code#BODY_TOO_LARGE} or keeps the first {@code cap}
 * bytes and reports {@link #truncated()}; either way it cancels the subscription, which makes the
 * HTTP client close the connection instead of reading the rest. A declared Content-Length over the
 * cap fails before a byte is read. The buffer never grows past the cap. It asks for one chunk at a
 * time, so the client does not read far ahead of what has been counted.
 */
final class CappedBodySubscriber implements HttpResponse.BodySubscriber<byte[]> {
    private static final int INITIAL_CAPACITY = 16 * 1024;

    private final int cap;
    private final boolean truncate;
    private final long declaredLength;
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    private volatile boolean aborted;
    private volatile boolean truncated;
    private byte[] buffer;
    private int size;

    /**
     * @param declaredLength the response's Content-Length, or -1 if unknown
     */
    CappedBodySubscriber(int cap, boolean truncate, long declaredLength) {
        this.cap = cap;
        this.truncate = truncate;
        this.declaredLength = declaredLength;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        if (!subscription.compareAndSet(null, s)) {
            s.cancel();
            return;
        }
        if (aborted) {
            s.cancel();
            return;
        }
        if (declaredLength > cap && !truncate) {
            s.cancel();
            body.completeExceptionally(
                    tooLarge("the response declares Content-Length " + declaredLength));
            return;
        }
        int initial =
                declaredLength >= 0
                        ? (int) Math.min(declaredLength, cap)
                        : Math.min(INITIAL_CAPACITY, cap);
        buffer = new byte[initial];
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer item : items) {
            int room = cap - size;
            int n = item.remaining();
            if (n > room) {
                subscription.get().cancel();
                if (!truncate) {
                    body.completeExceptionally(tooLarge("more bytes arrived"));
                    return;
                }
                append(item, room);
                truncated = true;
                body.complete(result());
                return;
            }
            append(item, n);
        }
        subscription.get().request(1);
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(result());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    /** Bytes allocated for the body so far; never more than the cap. */
    int bufferCapacity() {
        return buffer == null ? 0 : buffer.length;
    }

    /** Whether the body was cut at the cap. */
    boolean truncated() {
        return truncated;
    }

    /**
     * Stops reading: cancels the subscription (now or when it arrives) unless the body is already
     * complete, in which case the connection may be back in the client's pool. Safe from any
     * thread.
     */
    void abort() {
        aborted = true;
        Flow.Subscription s = subscription.get();
        if (s != null && !body.isDone()) {
            s.cancel();
        }
    }

    private void append(ByteBuffer item, int n) {
        if (n == 0) {
            return;
        }
        if (size + n > buffer.length) {
            long grown = Math.max((long) buffer.length * 2, (long) size + n);
            buffer = Arrays.copyOf(buffer, (int) Math.min(grown, cap));
        }
        item.get(buffer, size, n);
        size += n;
    }

    private byte[] result() {
        if (buffer == null) {
            return new byte[0];
        }
        return size == buffer.length ? buffer : Arrays.copyOf(buffer, size);
    }

    private FetchException tooLarge(String what) {
        return new FetchException(
                Code.BODY_TOO_LARGE,
                "response body is larger than maxBodyBytes ("
                        + cap
                        + " bytes): "
                        + what
                        + "; raise the limit or ask for truncation");
    }
}
