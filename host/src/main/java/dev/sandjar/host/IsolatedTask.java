package dev.sandjar.host;

/**
 * Host work that may run in a worker process (docs/sandbox.md, "Host work"): parsing a document or
 * decoding an image a guest passed, rendering its drawing, anything that runs third-party code over
 * untrusted input whose memory and time cannot be bounded before it starts. Started with {@link
 * RunSession#isolated}. When the sandbox isolates host work ({@link HostIsolation#processes()}, the
 * default) the task runs in a separate JVM with a small heap of its own: if the input makes it run
 * away, that process is stopped and replaced, and no other run notices.
 *
 * <p>The implementing class must be public, with a public no-argument constructor, and be on the
 * class path of the worker processes (by default the sandbox's own class path): the worker makes
 * one instance of it and calls {@link #run} for each call, one at a time. The input and the result
 * are values the transport carries ({@code null}, {@link Boolean}, {@link Long}, {@link Double},
 * {@link String}, {@code byte[]}, {@link java.util.List}, {@code Map<String, Object>}; docs/
 * transport.md); they are copied between the processes. A {@link BridgeException} the task throws
 * reaches the guest with its name, code and message; anything else becomes a {@code HOST_ERROR}.
 * The task must not keep state from one call to the next that a later call could observe: calls of
 * different runs and tenants share a worker.
 */
@FunctionalInterface
public interface IsolatedTask {
    /**
     * Does the work for one call.
     *
     * @param input the value the bridge passed to {@link RunSession#isolated} (a copy)
     * @param call the call's budget: call {@link HostCall#check()} between units of work
     * @return the result, a value the transport carries
     */
    Object run(Object input, HostCall call);
}
