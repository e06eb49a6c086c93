package dev.sandjar.bridges.fetch;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into addresses. The fetch guard calls it exactly once per request hop and then
 * connects only to an address it returned, so an implementation sees every name the guest reaches.
 *
 * <p>Implementations may block; the executor calls them off the caller's thread.
 */
@FunctionalInterface
public interface HostResolver {
    /**
     * Returns every address for {@code host} (an ASCII name, lower case, no trailing dot).
     *
     * @throws UnknownHostException if the name does not resolve
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The JVM's resolver, {@link InetAddress#getAllByName}. */
    static HostResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
