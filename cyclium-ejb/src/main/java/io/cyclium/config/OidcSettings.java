package io.cyclium.config;

import java.net.URI;

/**
 * The OpenID Connect client of {@code cyclium.security.identity=oidc}: the provider's issuer (its
 * discovery document is {@code <issuer>/.well-known/openid-configuration}), this application's
 * client id and secret at the provider (a confidential client with the authorization-code flow),
 * and the ID-token claim that lists the caller's groups.
 */
public record OidcSettings(URI issuer, String clientId, String clientSecret, String groupsClaim) {

    @Override
    public String toString() {
        // the secret is deliberately left out
        return "OidcSettings[issuer=" + issuer + ", clientId=" + clientId + ", groupsClaim=" + groupsClaim + "]";
    }
}
