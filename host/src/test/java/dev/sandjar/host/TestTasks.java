package dev.sandjar.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@link IsolatedTask}s for the host-work tests; public so a worker process can make them. */
public final class TestTasks {
    private TestTasks() {}

    /** Returns its input. */
    public static final class Echo implements IsolatedTask {
        public Echo() {}

        @Override
        public Object run(Object input, HostCall call) {
            return input;
        }
    }

    /** Prints to standard output, then returns its input: the channel must stay intact. */
    public static final class Noisy implements IsolatedTask {
        public Noisy() {}

        @Override
        public Object run(Object input, HostCall call) {
            for (int i = 0; i < 1000; i++) {
                System.out.println("noise " + i);
            }
            return input;
        }
    }

    /** Keeps what it allocates until the heap runs out; checks between allocations or not. */
    public static final class Hoard implements IsolatedTask {
        public Hoard() {}

        @Override
        public Object run(Object input, HostCall call) {
            boolean check = Boolean.TRUE.equals(((Map<?, ?>) input).get("check"));
            List<byte[]> kept = new ArrayList<>();
            while (true) {
                kept.add(new byte[1 << 20]);
                if (check) {
                    call.check();
                }
            }
        }
    }

    /** Spins without ever checking: only the host can end it. */
    public static final class Spin implements IsolatedTask {
        public Spin() {}

        static volatile long sink;

        @Override
        public Object run(Object input, HostCall call) {
            long x = 0;
            while (true) {
                x = x * 31 + 7;
                sink = x;
            }
        }
    }

    /**
     * Spins until its call is stopped, goes on for its input's milliseconds without checking (past
     * the worker's grace when that is longer), then checks: a parser that looks late.
     */
    public static final class Late implements IsolatedTask {
        public Late() {}

        @Override
        public Object run(Object input, HostCall call) {
            long x = 0;
            while (!call.isStopped()) {
                x = x * 31 + 7;
                Spin.sink = x;
            }
            long until = System.nanoTime() + ((Number) input).longValue() * 1_000_000L;
            while (System.nanoTime() < until) {
                x = x * 31 + 7;
                Spin.sink = x;
            }
            call.check();
            return x;
        }
    }

    /** Ends its own process, as a crash in a native decoder would. */
    public static final class Crash implements IsolatedTask {
        public Crash() {}

        @Override
        public Object run(Object input, HostCall call) {
            Runtime.getRuntime().halt(134);
            return null;
        }
    }

    /** Throws a bridge error the guest must see as it is. */
    public static final class Refuse implements IsolatedTask {
        public Refuse() {}

        @Override
        public Object run(Object input, HostCall call) {
            throw new BridgeException("RangeError", "INPUT_TOO_LARGE", "refuse: " + input);
        }
    }

    /** Answers the worker's process id, so tests can tell whether a worker was replaced. */
    public static final class Pid implements IsolatedTask {
        public Pid() {}

        @Override
        public Object run(Object input, HostCall call) {
            return ProcessHandle.current().pid();
        }
    }

    /** Returns a result of {@code input} bytes. */
    public static final class Big implements IsolatedTask {
        public Big() {}

        @Override
        public Object run(Object input, HostCall call) {
            return new byte[(int) (long) (Long) input];
        }
    }
}
