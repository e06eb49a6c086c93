package dev.sandjar.packs.internal;

import dev.sandjar.host.BridgeException;
import dev.sandjar.host.EncodedValue;
import dev.sandjar.host.HostCall;
import dev.sandjar.host.IsolatedTask;
import dev.sandjar.host.OperationCall;
import dev.sandjar.host.RunSession;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a host module's work for one guest call as host work of its run ({@link RunSession#work}:
 * off the engine thread, its CPU counted against the run's {@code timeout} with the guest's, its
 * memory against {@code hostBytes}, stopped with the run), and counts its output: every call may
 * produce {@link #CALL_OUTPUT} units (characters or bytes, as the module counts them), all
 * host-module calls of one run together {@link #RUN_OUTPUT}. Work checks its bounds with {@link
 * Work#check()} between units (a row, an entry, a page).
 *
 * <p>Modules over third-party parsers of untrusted documents (PDF, image metadata) run their work
 * as an {@link IsolatedTask} instead ({@link #isolated}), in the sandbox's worker processes.
 *
 * <p>Public only for the modules in sibling {@code internal} packages; not API.
 */
public final class HostWork {
    /** Output one call may produce (characters of text or bytes). */
    public static final long CALL_OUTPUT = 64L << 20;

    /** Output all host-module calls of one run may produce together. */
    public static final long RUN_OUTPUT = 256L << 20;

    private HostWork() {}

    /**
     * Runs {@code task} as host work of the call's run; the guest sees a promise of its result. A
     * {@link BridgeException} it throws reaches the guest as is.
     */
    public static <T> CompletableFuture<T> submit(OperationCall call, Function<Work, T> task) {
        RunSession session = call.session();
        Ledger ledger = session.state(Ledger.class, Ledger::new);
        ledger.admit(call.where());
        return session.work(
                call.where(),
                hc -> {
                    Work w = new Work(hc, ledger);
                    try {
                        T value = task.apply(w);
                        w.check();
                        return value;
                    } finally {
                        ledger.charge(w.output);
                    }
                });
    }

    /**
     * Runs {@code task} over {@code input} in one of the sandbox's worker processes (or in process,
     * as the sandbox is configured): for work on third-party parsers whose memory and time cannot
     * be bounded before they start. The task counts its output with {@link Work#of(HostCall)}.
     */
    public static CompletableFuture<Object> isolated(
            OperationCall call, Class<? extends IsolatedTask> task, Object input) {
        RunSession session = call.session();
        Ledger ledger = session.state(Ledger.class, Ledger::new);
        ledger.admit(call.where());
        // The value goes to the guest as the worker encoded it: never Java objects here.
        return session.isolatedForGuest(call.where(), task, input)
                .thenApply(
                        value -> {
                            ledger.charge(
                                    value instanceof EncodedValue e ? e.size() : units(value, 0));
                            return value;
                        });
    }

    /** The output units of a task's result: characters of its strings, bytes of its arrays. */
    private static long units(Object v, int depth) {
        if (v instanceof String s) {
            return s.length();
        } else if (v instanceof byte[] b) {
            return b.length;
        } else if (depth > 64) {
            return 0;
        } else if (v instanceof java.util.Collection<?> c) {
            long n = 0;
            for (Object e : c) {
                n += units(e, depth + 1);
            }
            return n;
        } else if (v instanceof java.util.Map<?, ?> m) {
            long n = 0;
            for (java.util.Map.Entry<?, ?> e : m.entrySet()) {
                n += units(e.getKey(), depth + 1) + units(e.getValue(), depth + 1);
            }
            return n;
        }
        return 8;
    }

    /** A {@code RangeError} with code {@code INPUT_TOO_LARGE}. */
    public static BridgeException tooLarge(String where, String message) {
        return new BridgeException("RangeError", "INPUT_TOO_LARGE", where + ": " + message);
    }

    /** A {@code TypeError} with code {@code INVALID_ARGUMENT}. */
    public static BridgeException invalid(String where, String message) {
        return BridgeException.invalidArgument(where + ": " + message);
    }

    /** One call's work: its host call (the run's bounds) and its output count. */
    public static final class Work {
        private final HostCall call;
        private final Ledger ledger;
        private long output;

        Work(HostCall call, Ledger ledger) {
            this.call = call;
            this.ledger = ledger;
        }

        /**
         * Work of an {@link IsolatedTask}: its own output cap, the run's total counted by the host.
         */
        public static Work of(HostCall call) {
            return new Work(call, new Ledger());
        }

        /**
         * Work outside any run, bounded by the per-call caps only: for a module's own tests, which
         * drive its streaming code with inputs no guest could send.
         */
        public static Work detached(String where) {
            return new Work(
                    new HostCall() {
                        @Override
                        public String where() {
                            return where;
                        }

                        @Override
                        public void check() {}

                        @Override
                        public boolean isStopped() {
                            return false;
                        }
                    },
                    new Ledger());
        }

        public String where() {
            return call.where();
        }

        /** Whether {@link #check()} would throw. */
        public boolean isStopped() {
            return call.isStopped();
        }

        /** Throws once the call must stop: the run ended, or its CPU or memory bound is passed. */
        public void check() {
            call.check();
        }

        /** Counts {@code units} of output; throws {@code OUTPUT_TOO_LARGE} past a cap. */
        public void output(long units) {
            output += units;
            if (output > CALL_OUTPUT) {
                throw new BridgeException(
                        "RangeError",
                        "OUTPUT_TOO_LARGE",
                        where()
                                + ": the result is larger than "
                                + CALL_OUTPUT
                                + " characters/bytes");
            }
            if (ledger.output + output > RUN_OUTPUT) {
                throw ledger.outputExhausted(where());
            }
        }
    }

    /** What a run's host-module calls produced together. */
    private static final class Ledger {
        volatile long output;

        synchronized void admit(String where) {
            if (output >= RUN_OUTPUT) {
                throw outputExhausted(where);
            }
        }

        synchronized void charge(long units) {
            output += units;
        }

        BridgeException outputExhausted(String where) {
            return new BridgeException(
                    "RangeError",
                    "OUTPUT_TOO_LARGE",
                    where
                            + ": the run's host calls produced more than "
                            + RUN_OUTPUT
                            + " characters/bytes together");
        }
    }
}
