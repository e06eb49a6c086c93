package dev.sandjar.packs;

import dev.sandjar.host.SandjarException;

/**
 * A Sandjar server gave a {@link RemoteCatalog} an answer it cannot use: no answer in time, a
 * refused token (401, 403), a module it does not deliver (404), another status, a body over its
 * bound, or a body whose SHA-256 or graph digest is not the one the server stated. The message
 * names the request and what was wrong. Nothing of such an answer reaches a guest or a cache.
 */
public final class RemoteCatalogException extends SandjarException {
    private static final long serialVersionUID = 1L;

    public RemoteCatalogException(String message) {
        super(message);
    }

    public RemoteCatalogException(String message, Throwable cause) {
        super(message, cause);
    }
}
