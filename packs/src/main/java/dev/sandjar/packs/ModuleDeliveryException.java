package dev.sandjar.packs;

import dev.sandjar.host.RefusedException;
import java.util.Objects;

/** A module id cannot be delivered: nothing serves it, or the catalog withholds it. */
public final class ModuleDeliveryException extends RefusedException {
    private static final long serialVersionUID = 1L;

    /** What a server maps the refusal to: 404 and 403. */
    public enum Reason {
        NOT_FOUND,
        REFUSED
    }

    private final Reason reason;

    public ModuleDeliveryException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
