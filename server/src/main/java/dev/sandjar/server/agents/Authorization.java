package dev.sandjar.server.agents;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Whether an action's code may call restricted tools (docs/agents.md, "Restricted tools"), and who
 * decides when it may not. Code is authorized when the caller says so: outright ({@link
 * #authorized()}), or because its SHA-256 is one the owner approved ({@link #approvedDigests}). A
 * call of a restricted tool by unauthorized code fails with {@code REQUIRES_AUTHORIZED_CODE}, or,
 * with an {@link Approver}, waits for its decision with the action's clock suspended. Immutable.
 */
public final class Authorization {
    /** Decides whether unauthorized code may make one call of a restricted tool. */
    @FunctionalInterface
    public interface Approver {
        /**
         * Asks for a decision; the stage completes with true to let the call run. While it is
         * pending the action's clock is suspended (its wall bound waits, up to the limits'
         * suspendAllowance; the CPU budget does not). A stage that never completes holds the action
         * until its wall bound ends it; the stage is cancelled when the action ends.
         */
        CompletionStage<Boolean> approve(ApprovalRequest request);
    }

    /** What an approver is asked about. */
    public record ApprovalRequest(
            String callId, String tool, Object arguments, String codeDigest) {}

    private static final Authorization NONE = new Authorization(false, null, null);

    private final boolean all;
    private final Set<String> digests;
    private final Approver approver;

    private Authorization(boolean all, Set<String> digests, Approver approver) {
        this.all = all;
        this.digests = digests;
        this.approver = approver;
    }

    /** Unauthorized code and no approver: restricted tools fail. The default. */
    public static Authorization none() {
        return NONE;
    }

    /** The caller vouches for the code: restricted tools run. */
    public static Authorization authorized() {
        return new Authorization(true, null, null);
    }

    /**
     * Code is authorized when its {@link #digest} is one of {@code sha256Hex}: the digests of files
     * the owner approved.
     */
    public static Authorization approvedDigests(Collection<String> sha256Hex) {
        Objects.requireNonNull(sha256Hex, "sha256Hex");
        return new Authorization(
                false,
                sha256Hex.stream()
                        .map(d -> d.toLowerCase(Locale.ROOT))
                        .collect(java.util.stream.Collectors.toUnmodifiableSet()),
                null);
    }

    /** The same authorization, with {@code approver} deciding for unauthorized code. */
    public Authorization withApprover(Approver approver) {
        return new Authorization(all, digests, Objects.requireNonNull(approver, "approver"));
    }

    /** The hex SHA-256 of the code's UTF-8 bytes: what {@link #approvedDigests} compares. */
    public static String digest(String code) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(code.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    boolean authorizes(String codeDigest) {
        return all || digests != null && digests.contains(codeDigest);
    }

    Approver approver() {
        return approver;
    }
}
