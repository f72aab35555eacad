package io.cyclium.config;

import java.net.URI;

/**
 * The OpenID Connect client of {@code cyclium.security.identity=oidc}: the provider's issuer (its
 * discovery document is {@code <issuer>/.well-known/openid-configuration}), this application's
 * client id and secret at the provider (a confidential client with the authorization-code flow),
 * the claim that lists the caller's groups (in the ID token of a console login and in the access
 * token an API call brings), the audience an access token must be for, and how far the provider's
 * clock may be off when a token's {@code exp} and {@code nbf} are checked.
 */
public record OidcSettings(URI issuer, String clientId, String clientSecret, String groupsClaim, String audience,
        java.time.Duration clockSkew) {

    @Override
    public String toString() {
        // the secret is deliberately left out
        return "OidcSettings[issuer=" + issuer + ", clientId=" + clientId + ", groupsClaim=" + groupsClaim
                + ", audience=" + audience + ", clockSkew=" + clockSkew + "]";
    }
}
