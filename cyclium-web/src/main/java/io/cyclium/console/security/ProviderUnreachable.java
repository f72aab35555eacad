package io.cyclium.console.security;

/**
 * The provider's discovery document or key set could not be read: the node cannot tell a good
 * token from a bad one, which is its own trouble, not the caller's (503, not 401; no throttling).
 */
final class ProviderUnreachable extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ProviderUnreachable(String message, Throwable cause) {
        super(message, cause);
    }
}
