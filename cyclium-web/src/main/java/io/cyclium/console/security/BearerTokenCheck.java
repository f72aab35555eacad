package io.cyclium.console.security;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether an access token from the OpenID Connect provider is good for an API call, and whose it
 * is. Checked in this order, the first failure naming itself: the algorithm (RS256/384/512,
 * ES256/384/512 — never {@code none} or a shared-secret HMAC, which anyone holding the client
 * secret could forge), the provider's key, the signature, then — only now that they are the
 * provider's — the claims: {@code iss} is the configured issuer, {@code exp} is not past and
 * {@code nbf} not ahead (each with the configured skew), the token is for this application
 * ({@code aud} lists the audience or {@code azp} names it: a token the provider issued to another
 * client is no credential here), and it is an access token ({@code typ}, where the provider sets
 * one, is not Keycloak's {@code ID} or {@code Refresh}).
 *
 * <p>The caller is {@code preferred_username} (as in the console's login), else {@code sub}; the
 * groups are the configured claim's values (a list or a single string; a dotted name such as
 * {@code realm_access.roles} is followed into nested objects when no claim has the whole name).
 * Which group is which role is web.xml's business, as for every other source.
 */
final class BearerTokenCheck {

    /** JOSE algorithm → JCA signature; ECDSA in the JWS's raw r||s form. */
    private static final Map<String, String> ALGORITHMS = Map.of(
            "RS256", "SHA256withRSA", "RS384", "SHA384withRSA", "RS512", "SHA512withRSA",
            "ES256", "SHA256withECDSAinP1363Format", "ES384", "SHA384withECDSAinP1363Format",
            "ES512", "SHA512withECDSAinP1363Format");

    private static final Set<String> NOT_ACCESS_TOKENS = Set.of("ID", "Refresh", "Logout");

    private final ProviderKeys keys;
    private final String issuer;
    private final String audience;
    private final String groupsClaim;
    private final Duration skew;
    private final Clock clock;

    BearerTokenCheck(ProviderKeys keys, String issuer, String audience, String groupsClaim, Duration skew, Clock clock) {
        this.keys = keys;
        this.issuer = issuer;
        this.audience = audience;
        this.groupsClaim = groupsClaim;
        this.skew = skew;
        this.clock = clock;
    }

    /**
     * The caller and groups of a good token.
     *
     * @throws TokenRejected       why the token is not good
     * @throws ProviderUnreachable the provider's keys could not be read
     */
    CredentialValidationResult validate(String compact) throws TokenRejected {
        JsonWebToken token = JsonWebToken.parse(compact);
        String alg = token.headerText("alg");
        String jca = alg == null ? null : ALGORITHMS.get(alg);
        if (jca == null) {
            throw new TokenRejected("the bearer token's algorithm " + (alg == null ? "(none)" : ProviderKeys.shorten(alg))
                    + " is not accepted: allowed are " + String.join(", ", ALGORITHMS.keySet().stream().sorted().toList()));
        }
        PublicKey key = keys.key(token.headerText("kid"));
        if (!verifies(jca, key, token)) {
            throw new TokenRejected("the bearer token's signature does not verify with the provider's key");
        }
        JsonObject claims = token.claims();
        String iss = token.text("iss");
        if (!issuer.equals(iss)) {
            throw new TokenRejected("the bearer token was issued by " + (iss == null ? "(no iss)" : ProviderKeys.shorten(iss))
                    + ", not by the configured issuer " + issuer);
        }
        Instant now = clock.instant();
        Instant exp = instant(claims, "exp");
        if (exp == null) {
            throw new TokenRejected("the bearer token has no expiry (exp)");
        }
        if (!now.isBefore(exp.plus(skew))) {
            throw new TokenRejected("the bearer token expired at " + exp + " (" + Duration.between(exp, now).toSeconds()
                    + " s ago): get a new one from the provider");
        }
        Instant nbf = instant(claims, "nbf");
        if (nbf != null && now.plus(skew).isBefore(nbf)) {
            throw new TokenRejected("the bearer token is not valid before " + nbf);
        }
        List<String> aud = strings(claims.get("aud"));
        String azp = token.text("azp");
        if (!aud.contains(audience) && !audience.equals(azp)) {
            throw new TokenRejected("the bearer token is for another client (aud " + aud + ", azp "
                    + (azp == null ? "(none)" : ProviderKeys.shorten(azp)) + "), not for " + audience);
        }
        String typ = token.text("typ");
        if (typ != null && NOT_ACCESS_TOKENS.contains(typ)) {
            throw new TokenRejected("the bearer token is an " + typ + " token, not an access token");
        }
        String caller = token.text("preferred_username") != null ? token.text("preferred_username") : token.text("sub");
        if (caller == null || caller.isBlank()) {
            throw new TokenRejected("the bearer token names no caller (neither preferred_username nor sub)");
        }
        return new CredentialValidationResult(caller, new LinkedHashSet<>(strings(groups(claims))));
    }

    private static boolean verifies(String jca, PublicKey key, JsonWebToken token) {
        try {
            Signature signature = Signature.getInstance(jca);
            signature.initVerify(key);
            signature.update(token.signingInput());
            return signature.verify(token.signature());
        } catch (GeneralSecurityException | IllegalArgumentException wrongKindOfKey) {
            // an RSA key for an ES256 token, a signature of the wrong length: it does not verify
            return false;
        }
    }

    /** The groups claim: by its whole name, else along its dots through nested objects. */
    private JsonValue groups(JsonObject claims) {
        JsonValue whole = claims.get(groupsClaim);
        if (whole != null || groupsClaim.indexOf('.') < 0) {
            return whole;
        }
        JsonValue at = claims;
        for (String step : groupsClaim.split("\\.")) {
            if (!(at instanceof JsonObject o)) {
                return null;
            }
            at = o.get(step);
        }
        return at;
    }

    private static Instant instant(JsonObject claims, String name) throws TokenRejected {
        JsonValue v = claims.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof JsonNumber n)) {
            throw new TokenRejected("the bearer token's " + name + " is not a number of seconds");
        }
        return Instant.ofEpochSecond(n.longValue());
    }

    /** A JSON string or array of strings as a list; anything else is empty. */
    private static List<String> strings(JsonValue v) {
        if (v instanceof JsonString s) {
            return List.of(s.getString());
        }
        if (v instanceof JsonArray a) {
            return a.stream().filter(JsonString.class::isInstance).map(x -> ((JsonString) x).getString()).toList();
        }
        return List.of();
    }
}
