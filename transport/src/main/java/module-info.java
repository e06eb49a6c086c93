/**
 * The values that cross between Java and the guest.
 *
 * <p>{@code dev.sandjar.transport} is core API: the Java types a guest's values become ({@link
 * dev.sandjar.transport.GuestValues} lists them), which {@code RunResult.value()} and a bridge
 * operation's arguments hold. The codec itself ({@code dev.sandjar.transport.codec}) is the sandbox
 * core's: callers reach its JSON form through {@code RunResult.valueJson()} and {@code
 * RunRequest.Builder.jsonGlobal}, so it is exported to the sandbox core alone.
 */
// The qualified export names a module built after this one, which javac warns of (lint "module").
@SuppressWarnings("module")
module dev.sandjar.transport {
    requires com.fasterxml.jackson.databind;

    exports dev.sandjar.transport;
    exports dev.sandjar.transport.codec to
            dev.sandjar.host;
}
