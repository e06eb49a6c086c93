package dev.sandjar.host;

/**
 * How long each setup phase of one run took, in nanoseconds (see {@link RunStats} for what each
 * covers). Filled in as setup goes; a phase not reached stays 0. Engine thread only.
 */
final class SetupPhases {
    /** Building the entry module (parsing the code when it has imports or exports). */
    long analysisNanos;

    /** Restoring the prepared template, and building it the first time. */
    long runtimeNanos;

    /** Setting the run's limits on the restored runtime. */
    long contextNanos;

    /** Always 0: bridges are installed when a template is built. */
    long bridgesNanos;

    /** Defining the injected globals. */
    long preludeNanos;

    /** The setup phases together, as elapsed time. */
    long setupNanos;

    /** The engine thread's CPU time for setup; -1 where the JVM cannot tell. */
    long setupCpuNanos = -1;
}
