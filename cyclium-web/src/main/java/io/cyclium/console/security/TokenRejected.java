package io.cyclium.console.security;

/**
 * A bearer token the API does not accept, with the reason in words the caller can act on
 * ("expired at …", "issued by … , not …", "signature does not verify"): it becomes the 401's
 * JSON error body and the {@code error_description} of the challenge.
 */
final class TokenRejected extends Exception {

    private static final long serialVersionUID = 1L;

    TokenRejected(String reason) {
        super(reason, null, false, false);
    }
}
