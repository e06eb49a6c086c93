package dev.sandjar.bridges.fetch;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A resolver with scripted answers: each call for a name takes the next answer queued for it, and
 * the last answer repeats. Unknown names fail. Counts calls per name.
 */
final class CountingResolver implements HostResolver {
    private final Map<String, Deque<List<InetAddress>>> answers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    /** Queues one answer for {@code host}; call again to script what a later lookup returns. */
    CountingResolver answer(String host, String... addresses) {
        List<InetAddress> answer = Arrays.stream(addresses).map(CountingResolver::literal).toList();
        answers.computeIfAbsent(host, h -> new ArrayDeque<>()).addLast(answer);
        return this;
    }

    int calls(String host) {
        AtomicInteger count = calls.get(host);
        return count == null ? 0 : count.get();
    }

    int totalCalls() {
        return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public synchronized List<InetAddress> resolve(String host) throws UnknownHostException {
        calls.computeIfAbsent(host, h -> new AtomicInteger()).incrementAndGet();
        Deque<List<InetAddress>> queue = answers.get(host);
        if (queue == null || queue.isEmpty()) {
            throw new UnknownHostException(host);
        }
        return queue.size() > 1 ? queue.removeFirst() : queue.getFirst();
    }

    /** Parses a literal without any lookup (the literals here are always IP addresses). */
    static InetAddress literal(String text) {
        try {
            return InetAddress.getByAddress(
                    text.contains(":") ? IpLiterals.parseIpv6(text) : IpLiterals.parseIpv4(text));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
