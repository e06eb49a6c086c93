package dev.sandjar.bridges.node;

import dev.sandjar.bridges.Capabilities;
import dev.sandjar.bridges.fetch.Fetch;
import dev.sandjar.bridges.secrets.SecretStore;
import dev.sandjar.bridges.workspace.FilesystemAccess;
import dev.sandjar.bridges.workspace.WorkspaceBridge;
import dev.sandjar.bridges.workspace.WorkspaceLimits;
import dev.sandjar.host.Bridge;
import dev.sandjar.host.InvalidRequestException;
import dev.sandjar.host.Limits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A workflow code node's properties, mapped onto a run's limits and grants as the reference's node
 * does: {@code timeout} (seconds, 0 for none) onto the CPU budget, {@code max_response_mb} onto
 * {@code outputBytes}, {@code allow_local_network} onto a fetch whose SSRF guard lets private
 * addresses through, {@code allow_host_filesystem} onto a workspace without containment, and {@code
 * secrets} onto the secret scope. Immutable.
 *
 * <pre>{@code
 * NodeProperties props = new NodeProperties(5, 1, false, false, Set.of("API_TOKEN"));
 * CodeNode node = CodeNode.builder(sandbox, body)
 *         .limits(props.limits())
 *         .bridges(props.bridges(new NodeProperties.Grants(fetch, privateFetch, dir, store)))
 *         ...
 * }</pre>
 *
 * @param timeoutSeconds the guest CPU budget; 0 means none, which is the sandbox's ceiling (every
 *     run has a bound); negative is refused
 * @param maxResponseMb the bound on each emitted value and final, in MiB; 0 for the sandbox's
 *     default
 * @param allowLocalNetwork fetch may reach loopback and private addresses
 * @param allowHostFilesystem the workspace's paths are host paths (no containment)
 * @param secrets the secret names the body may read (empty: none)
 */
public record NodeProperties(
        long timeoutSeconds,
        long maxResponseMb,
        boolean allowLocalNetwork,
        boolean allowHostFilesystem,
        Set<String> secrets) {

    public NodeProperties {
        if (timeoutSeconds < 0) {
            throw new InvalidRequestException(
                    "timeout must be 0 (none) or a number of seconds, got " + timeoutSeconds);
        }
        if (maxResponseMb < 0 || maxResponseMb > Limits.CEILINGS.outputBytes() >> 20) {
            throw new InvalidRequestException(
                    "max_response_mb must be from 0 to "
                            + (Limits.CEILINGS.outputBytes() >> 20)
                            + ", got "
                            + maxResponseMb);
        }
        secrets = Set.copyOf(secrets);
    }

    /** The properties a new node has: the sandbox's defaults, nothing granted beyond them. */
    public static NodeProperties defaults() {
        return new NodeProperties(Limits.DEFAULTS.timeout().toSeconds(), 0, false, false, Set.of());
    }

    /** The limits these properties set (the rest are the sandbox's defaults). */
    public Limits limits() {
        Limits.Builder b =
                Limits.builder()
                        .timeout(
                                timeoutSeconds == 0
                                        ? Limits.CEILINGS.timeout()
                                        : Duration.ofSeconds(
                                                Math.min(
                                                        timeoutSeconds,
                                                        Limits.CEILINGS.timeout().toSeconds())));
        if (maxResponseMb > 0) {
            b.outputBytes(maxResponseMb << 20);
        }
        return b.build();
    }

    /**
     * What the host can grant a node: a fetch for public addresses, one whose guard lets private
     * ones through, a workspace directory, a secret store. Any may be null (not offered).
     */
    public record Grants(
            Fetch fetch, Fetch privateFetch, Path workspace, SecretStore secretStore) {}

    /**
     * The default capabilities plus what these properties ask of {@code grants}: fetch when one is
     * offered (the private one when {@code allowLocalNetwork}), the workspace when one is offered
     * (uncontained when {@code allowHostFilesystem}), and the named secrets.
     *
     * @throws InvalidRequestException when a property needs a grant that is not offered
     */
    public List<Bridge> bridges(Grants grants) {
        Objects.requireNonNull(grants, "grants");
        Capabilities.Builder caps = Capabilities.builder();
        if (allowLocalNetwork) {
            if (grants.privateFetch() == null) {
                throw new InvalidRequestException(
                        "allow_local_network needs a fetch that may reach private addresses;"
                                + " none is offered");
            }
            caps.fetch(grants.privateFetch());
        } else if (grants.fetch() != null) {
            caps.fetch(grants.fetch());
        }
        if (allowHostFilesystem && grants.workspace() == null) {
            throw new InvalidRequestException(
                    "allow_host_filesystem needs a workspace; none is offered");
        }
        if (grants.workspace() != null) {
            caps.workspace(
                    WorkspaceBridge.create(
                            grants.workspace(),
                            WorkspaceLimits.defaults(),
                            allowHostFilesystem
                                    ? FilesystemAccess.HOST
                                    : FilesystemAccess.CONTAINED));
        }
        if (!secrets.isEmpty()) {
            if (grants.secretStore() == null) {
                throw new InvalidRequestException(
                        "secrets " + secrets + " need a secret store; none is offered");
            }
            caps.secrets(grants.secretStore(), secrets);
        }
        return caps.build();
    }
}
