package io.cyclium.console.security;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.IdentitySource;
import io.cyclium.config.OidcSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.time.Clock;

/**
 * The API's bearer tokens ({@code Authorization: Bearer <jwt>}): access tokens of the OpenID
 * Connect provider, taken in {@code cyclium.security.identity=oidc} only and checked on every
 * request by {@link BearerTokenCheck} against the provider's keys ({@link ProviderKeys}, kept for
 * the node's life and refreshed as they say). Portable on purpose: JDK crypto and the JSON API,
 * nothing of the server's own JWT support (MicroProfile JWT is set up differently on Payara and
 * WildFly, and would be a second mechanism beside {@link ConsoleAuthentication}).
 */
@ApplicationScoped
public class BearerTokens {

    @Inject
    CycliumConfig config;

    @Inject
    Clock clock;

    /** Made at the first token: the provider is not asked anything before one arrives. */
    private volatile BearerTokenCheck check;

    /**
     * The caller and groups of a good access token.
     *
     * @throws TokenRejected       why it is not one (also: this node takes no bearer tokens)
     * @throws ProviderUnreachable the provider's keys could not be read
     */
    CredentialValidationResult validate(String token) throws TokenRejected {
        if (config.identity() != IdentitySource.OIDC) {
            throw new TokenRejected("bearer tokens are taken only with cyclium.security.identity=oidc; this node uses "
                    + config.identity().wire() + ": send a user and password with HTTP Basic");
        }
        return check().validate(token);
    }

    private BearerTokenCheck check() {
        BearerTokenCheck c = check;
        if (c == null) {
            synchronized (this) {
                c = check;
                if (c == null) {
                    OidcSettings oidc = config.oidc().orElseThrow();
                    c = new BearerTokenCheck(new ProviderKeys(oidc.issuer(), clock), oidc.issuer().toString(),
                            oidc.audience(), oidc.groupsClaim(), oidc.clockSkew(), clock);
                    check = c;
                }
            }
        }
        return c;
    }
}
