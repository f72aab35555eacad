package io.cyclium.console.security;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.IdentitySource;
import io.cyclium.config.OidcSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.security.enterprise.authentication.mechanism.http.OpenIdAuthenticationMechanismDefinition;
import jakarta.security.enterprise.authentication.mechanism.http.openid.ClaimsDefinition;

/**
 * The OpenID Connect client of {@code cyclium.security.identity=oidc}, declared with Jakarta
 * Security's own mechanism (authorization-code flow, state and nonce, the ID token's signature
 * checked against the provider's keys): the server runs the flow, this class only names where its
 * settings come from. The annotation's values are EL read from this bean, which reads
 * MicroProfile Config through {@link CycliumConfig} (checked at boot, with errors naming the bad
 * value); the server evaluates them at the first login, not at deployment.
 *
 * <p>The definition is always deployed — annotations cannot depend on configuration — but the
 * mechanism it makes only ever runs when {@link ConsoleAuthentication} hands a page request to it,
 * which it does in oidc mode alone. The provider sends the browser back to the overview page
 * ({@code redirectURI}), where the login ends and {@link PageAfterProviderLogin} sends the caller on
 * to the page first asked for. The caller's name is the
 * ID token's {@code preferred_username}; its groups, the claim {@code cyclium.security.oidc.groups-claim}
 * (default {@code groups}), are the roles.
 */
@ApplicationScoped
@Named("cycliumOidc")
@OpenIdAuthenticationMechanismDefinition(
        providerURI = "${cycliumOidc.issuer}",
        clientId = "${cycliumOidc.clientId}",
        clientSecret = "${cycliumOidc.clientSecret}",
        redirectURI = "${baseURL}/index.xhtml",
        // true would send the caller on to the page first asked for, but Soteria 3.0.3 (Payara 6.2025.10)
        // then fails that page with a NullPointerException in its restored request (RequestData without
        // parameters): PageAfterProviderLogin does it instead
        redirectToOriginalResource = false,
        claimsDefinition = @ClaimsDefinition(callerGroupsClaim = "${cycliumOidc.groupsClaim}"))
public class OidcClient {

    @Inject
    CycliumConfig config;

    private OidcSettings settings() {
        return config.oidc().orElseThrow(() -> new IllegalStateException(
                "the OpenID Connect login was asked for, but cyclium.security.identity is " + config.identity().wire()));
    }

    public boolean isEnabled() {
        return config.identity() == IdentitySource.OIDC;
    }

    public String getIssuer() {
        return settings().issuer().toString();
    }

    public String getClientId() {
        return settings().clientId();
    }

    public String getClientSecret() {
        return settings().clientSecret();
    }

    public String getGroupsClaim() {
        return settings().groupsClaim();
    }
}
