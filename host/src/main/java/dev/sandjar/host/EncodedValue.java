package dev.sandjar.host;

import dev.sandjar.transport.codec.Transport;

/**
 * A host operation's value still in the transport's encoded form (docs/transport.md): what {@link
 * RunSession#isolatedForGuest} completes with when the work ran in a worker process. Returned to
 * the guest (a handler's stage completing with it), it goes into the guest's heap without ever
 * being Java objects in the sandbox's: a result of a million rows costs the sandbox its encoded
 * bytes, not a million objects. {@link #decode()} makes the Java values when a bridge needs them.
 * Immutable.
 */
public final class EncodedValue {
    private final Transport.Encoded encoded;

    EncodedValue(Transport.Encoded encoded) {
        this.encoded = encoded;
    }

    Transport.Encoded encoded() {
        return encoded;
    }

    /** The value as Java values (the transport's forms: docs/transport.md). */
    public Object decode() {
        return Transport.decode(encoded.json(), encoded.sidecar());
    }

    /** Bytes the encoded value takes: its JSON text's UTF-16 units and its sidecar. */
    public long size() {
        long n = 2L * encoded.json().length();
        for (Object s : encoded.sidecar()) {
            n += s instanceof byte[] b ? b.length : 2L * ((String) s).length();
        }
        return n;
    }

    @Override
    public String toString() {
        return "EncodedValue[" + size() + " bytes]";
    }
}
