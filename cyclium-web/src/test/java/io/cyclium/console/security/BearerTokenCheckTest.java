package io.cyclium.console.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The access-token checks against a provider played by a real HTTP server on a loopback port
 * (the JDK's): its discovery document and key set are served as a provider serves them, and the
 * tokens are signed with the JDK's RSA and EC keys. The same checks run against a real Keycloak in
 * {@code OidcLoginIT}; here each rule gets its own case, and the key refresh can be counted.
 */
class BearerTokenCheckTest {

    private static final String AUDIENCE = "cyclium-console";

    private final HandClock clock = new HandClock();
    private final AtomicInteger keySetReads = new AtomicInteger();
    private final Map<String, KeyPair> published = new LinkedHashMap<>();
    private HttpServer provider;
    private String issuer;
    private BearerTokenCheck check;

    @BeforeEach
    void startProvider() throws Exception {
        provider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        issuer = "http://127.0.0.1:" + provider.getAddress().getPort() + "/realms/ops";
        provider.createContext("/realms/ops/.well-known/openid-configuration", x -> answer(x,
                Json.createObjectBuilder().add("issuer", issuer).add("jwks_uri", issuer + "/certs").build()));
        provider.createContext("/realms/ops/certs", x -> {
            keySetReads.incrementAndGet();
            answer(x, keySet());
        });
        provider.start();
        published.put("rsa-1", rsa());
        check = new BearerTokenCheck(new ProviderKeys(URI.create(issuer), clock), issuer, AUDIENCE, "groups",
                Duration.ofSeconds(30), clock);
    }

    @AfterEach
    void stopProvider() {
        provider.stop(0);
    }

    @Test
    void a_good_rs256_token_names_its_user_and_groups() throws Exception {
        CredentialValidationResult r = check.validate(token("RS256", "rsa-1", published.get("rsa-1"), claims()));
        assertThat(r.getStatus()).isEqualTo(CredentialValidationResult.Status.VALID);
        assertThat(r.getCallerPrincipal().getName()).isEqualTo("alice");
        assertThat(r.getCallerGroups()).containsExactly("cyclium-admin");
    }

    @Test
    void a_good_es256_token_is_taken_too() throws Exception {
        published.put("ec-1", ec());
        assertThat(check.validate(token("ES256", "ec-1", published.get("ec-1"), claims())).getCallerPrincipal().getName())
                .isEqualTo("alice");
    }

    @Test
    void a_changed_payload_fails_the_signature() throws Exception {
        String good = token("RS256", "rsa-1", published.get("rsa-1"), claims());
        String[] parts = good.split("\\.");
        String promoted = b64(claims().add("groups", Json.createArrayBuilder().add("cyclium-admin").add("root")).build()
                .toString().getBytes(StandardCharsets.UTF_8));
        assertRejected(parts[0] + "." + promoted + "." + parts[2], "signature does not verify");
    }

    @Test
    void a_token_signed_by_a_key_the_provider_does_not_publish_is_refused_after_one_fresh_read() throws Exception {
        check.validate(token("RS256", "rsa-1", published.get("rsa-1"), claims()));
        assertThat(keySetReads).hasValue(1);
        clock.advance(Duration.ofSeconds(11));
        assertRejected(token("RS256", "mallory", rsa(), claims()), "key the provider does not publish (kid mallory)");
        assertThat(keySetReads).as("an unknown kid reads the set again").hasValue(2);
        assertRejected(token("RS256", "mallory", rsa(), claims()), "does not publish");
        assertThat(keySetReads).as("but not again within " + ProviderKeys.MIN_REFRESH).hasValue(2);
        // the other key under a kid the provider does publish: the signature is what fails
        assertRejected(token("RS256", "rsa-1", rsa(), claims()), "signature does not verify");
    }

    @Test
    void a_rotated_key_is_found_by_reading_the_set_again() throws Exception {
        check.validate(token("RS256", "rsa-1", published.get("rsa-1"), claims()));
        clock.advance(Duration.ofSeconds(11));
        published.clear();
        published.put("rsa-2", rsa());
        assertThat(check.validate(token("RS256", "rsa-2", published.get("rsa-2"), claims())).getCallerPrincipal().getName())
                .isEqualTo("alice");
        assertThat(keySetReads).hasValue(2);
    }

    @Test
    void expiry_and_not_before_allow_the_skew_and_no_more() throws Exception {
        long now = clock.instant().getEpochSecond();
        KeyPair key = published.get("rsa-1");
        assertThat(check.validate(token("RS256", "rsa-1", key, claims().add("exp", now - 29))).getStatus())
                .isEqualTo(CredentialValidationResult.Status.VALID);
        assertRejected(token("RS256", "rsa-1", key, claims().add("exp", now - 31)), "expired at");
        assertRejected(token("RS256", "rsa-1", key, claims().add("nbf", now + 31)), "not valid before");
        assertRejected(token("RS256", "rsa-1", key, claims().remove("exp")), "no expiry");
    }

    @Test
    void another_issuer_another_client_and_an_id_token_are_refused() throws Exception {
        KeyPair key = published.get("rsa-1");
        assertRejected(token("RS256", "rsa-1", key, claims().add("iss", "http://127.0.0.1:1/realms/other")),
                "issued by http://127.0.0.1:1/realms/other, not by the configured issuer " + issuer);
        assertRejected(token("RS256", "rsa-1", key, claims().add("azp", "other-app")),
                "for another client (aud [account], azp other-app), not for cyclium-console");
        assertThat(check.validate(token("RS256", "rsa-1", key, claims().add("azp", "other-app")
                .add("aud", Json.createArrayBuilder().add("account").add(AUDIENCE)))).getStatus())
                .as("an audience the provider added for this client").isEqualTo(CredentialValidationResult.Status.VALID);
        assertRejected(token("RS256", "rsa-1", key, claims().add("typ", "ID")), "an ID token, not an access token");
    }

    @Test
    void no_signature_a_shared_secret_or_garbage_is_no_token() throws Exception {
        String payload = b64(claims().build().toString().getBytes(StandardCharsets.UTF_8));
        assertRejected(b64("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "." + payload + ".", "algorithm none is not accepted");
        assertRejected(b64("{\"alg\":\"HS256\",\"kid\":\"rsa-1\"}".getBytes(StandardCharsets.UTF_8)) + "." + payload + ".AAAA",
                "algorithm HS256 is not accepted");
        assertRejected("not-a-token", "not a signed JWT");
        assertRejected("YQ.YQ.YQ", "header is not a JSON object");
        assertRejected("a.b.c", "header is not base64url");
    }

    @Test
    void groups_may_be_nested_claims() throws Exception {
        BearerTokenCheck nested = new BearerTokenCheck(new ProviderKeys(URI.create(issuer), clock), issuer, AUDIENCE,
                "realm_access.roles", Duration.ofSeconds(30), clock);
        JsonObjectBuilder c = claims().remove("groups").add("realm_access",
                Json.createObjectBuilder().add("roles", Json.createArrayBuilder().add("cyclium-viewer").add("offline_access")));
        assertThat(nested.validate(token("RS256", "rsa-1", published.get("rsa-1"), c)).getCallerGroups())
                .containsExactlyInAnyOrder("cyclium-viewer", "offline_access");
    }

    @Test
    void a_provider_that_does_not_answer_is_the_nodes_trouble_not_a_bad_token() throws Exception {
        provider.stop(0);
        assertThatThrownBy(() -> check.validate(token("RS256", "rsa-1", published.get("rsa-1"), claims())))
                .isInstanceOf(ProviderUnreachable.class).hasMessageContaining("discovery document");
    }

    private void assertRejected(String token, String reason) {
        assertThatThrownBy(() -> check.validate(token)).isInstanceOf(TokenRejected.class).hasMessageContaining(reason);
    }

    private JsonObjectBuilder claims() {
        long now = clock.instant().getEpochSecond();
        return Json.createObjectBuilder().add("iss", issuer).add("sub", "f3b1").add("preferred_username", "alice")
                .add("aud", "account").add("azp", AUDIENCE).add("typ", "Bearer").add("iat", now).add("exp", now + 300)
                .add("groups", Json.createArrayBuilder().add("cyclium-admin"));
    }

    private static String token(String alg, String kid, KeyPair key, JsonObjectBuilder claims) throws GeneralSecurityException {
        String input = b64(Json.createObjectBuilder().add("alg", alg).add("typ", "JWT").add("kid", kid).build().toString()
                .getBytes(StandardCharsets.UTF_8)) + "." + b64(claims.build().toString().getBytes(StandardCharsets.UTF_8));
        Signature s = Signature.getInstance(alg.startsWith("ES") ? "SHA256withECDSAinP1363Format" : "SHA256withRSA");
        s.initSign(key.getPrivate());
        s.update(input.getBytes(StandardCharsets.US_ASCII));
        return input + "." + b64(s.sign());
    }

    private JsonObject keySet() {
        JsonArrayBuilder keys = Json.createArrayBuilder();
        // an encryption key first, as Keycloak publishes one: it must not be taken for signing
        keys.add(Json.createObjectBuilder().add("kid", "rsa-1").add("kty", "RSA").add("use", "enc").add("n", "AQAB").add("e", "AQAB"));
        for (Map.Entry<String, KeyPair> e : new ArrayList<>(published.entrySet())) {
            JsonObjectBuilder jwk = Json.createObjectBuilder().add("kid", e.getKey()).add("use", "sig");
            if (e.getValue().getPublic() instanceof RSAPublicKey r) {
                jwk.add("kty", "RSA").add("alg", "RS256").add("n", unsigned(r.getModulus())).add("e", unsigned(r.getPublicExponent()));
            } else {
                ECPublicKey k = (ECPublicKey) e.getValue().getPublic();
                jwk.add("kty", "EC").add("crv", "P-256").add("x", unsigned(k.getW().getAffineX())).add("y", unsigned(k.getW().getAffineY()));
            }
            keys.add(jwk);
        }
        return Json.createObjectBuilder().add("keys", keys).build();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange x, JsonObject body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    private static String unsigned(BigInteger n) {
        byte[] b = n.toByteArray();
        return b64(b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b);
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    private static KeyPair ec() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

}
