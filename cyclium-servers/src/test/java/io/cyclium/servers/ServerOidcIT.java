package io.cyclium.servers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.KeycloakServer;
import io.cyclium.cluster.ProviderLoginBrowser;
import io.cyclium.servers.ServerDatabase.Kind;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code cyclium.security.identity=oidc} on a full server: the EAR on Payara Server, set up by
 * server-config alone, with a real Keycloak (the same distribution and realm as {@code OidcLoginIT}
 * on Micro). A page opened without a session goes to Keycloak's login and, after it, to that page;
 * the API takes Keycloak's access tokens: the viewer reads but its mode switch is 403 and audited as
 * refused, the admin's switch is done and audited under its name, a token whose groups were changed
 * is a 401. The client secret reaches the server through the environment start-domain passes on,
 * not domain.xml.
 */
@ExtendWith(MatrixRotation.class)
class ServerOidcIT {

    @Test
    @Tag("matrix")
    void payara_server_logs_in_through_keycloak_and_takes_its_tokens() throws Exception {
        String cell = "payara-oidc";
        Path dir = EarSmokeIT.SERVERS.resolve("runs").resolve(cell + "-" + UUID.randomUUID().toString().substring(0, 6));
        String alicePassword = "alice-" + UUID.randomUUID();
        String bobPassword = "bob-" + UUID.randomUUID();
        String clientSecret = "secret-" + UUID.randomUUID();
        String realm = KeycloakServer.resource("/oidc/cyclium-realm.json")
                .replace("@ALICE_PASSWORD@", alicePassword).replace("@BOB_PASSWORD@", bobPassword)
                .replace("@CAROL_PASSWORD@", "carol-" + UUID.randomUUID()).replace("@CLIENT_SECRET@", clientSecret);
        // Keycloak boots while the domain is made: the server asks the provider nothing before the first login
        try (KeycloakServer keycloak = KeycloakServer.start("cyclium", realm, dir.resolve("keycloak"));
             ServerDatabase db = ServerDatabase.create(Kind.H2, dir);
             FullServer server = EarSmokeIT.server("payara", cell, dir, db, Map.of("cyclium.security.identity", "oidc"))) {
            server.env.put("CYCLIUM_SECURITY_OIDC_ISSUER", keycloak.issuer());
            server.env.put("CYCLIUM_SECURITY_OIDC_CLIENT_ID", "cyclium-console");
            server.env.put("CYCLIUM_SECURITY_OIDC_CLIENT_SECRET", clientSecret);
            server.install(EarSmokeIT.smokeArchive("payara", dir));
            keycloak.awaitReady();

            ProviderLoginBrowser alice = new ProviderLoginBrowser();
            String link = server.app().resolve("actors.xhtml").toString();
            HttpResponse<String> atProvider = alice.follow(alice.get(link));
            assertThat(atProvider.uri().toString()).as("a page without a session goes to Keycloak after " + alice.hops)
                    .startsWith(keycloak.issuer() + "/protocol/openid-connect/auth?");
            HttpResponse<String> landed = alice.follow(alice.submitLogin(atProvider, "alice", alicePassword));
            assertThat(landed.uri().toString()).as("the page first asked for, after " + alice.hops).isEqualTo(link);
            assertThat(landed.statusCode()).isEqualTo(200);
            assertThat(landed.body()).contains("id=\"session:user\">alice<").contains("id=\"session:role\">cyclium-admin<");

            String asBob = keycloak.accessToken("cyclium-console", clientSecret, "bob", bobPassword);
            String asAlice = keycloak.accessToken("cyclium-console", clientSecret, "alice", alicePassword);
            HttpResponse<String> bobReads = server.callWithToken(asBob, "GET", "api/episodes", null);
            assertThat(bobReads.statusCode()).as(bobReads.body()).isEqualTo(200);
            HttpResponse<String> bobSwitches = server.callWithToken(asBob, "PUT", "api/mode", "{\"mode\": \"full\"}");
            assertThat(bobSwitches.statusCode()).as(bobSwitches.body()).isEqualTo(403);
            HttpResponse<String> aliceSwitches = server.callWithToken(asAlice, "PUT", "api/mode", "{\"mode\": \"full\"}");
            assertThat(aliceSwitches.statusCode()).as(aliceSwitches.body()).isEqualTo(200);
            assertThat(server.callWithToken(asBob, "GET", "api/audit?user=bob&action=node.mode", null).body())
                    .contains("\"outcome\":\"refused\"").contains("needs the role cyclium-admin");
            assertThat(server.callWithToken(asBob, "GET", "api/audit?user=alice&action=node.mode", null).body())
                    .contains("\"user\":\"alice\"").contains("\"outcome\":\"ok\"");

            String[] parts = asBob.split("\\.");
            String promoted = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                    new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                            .replace("cyclium-viewer", "cyclium-admin").getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
            HttpResponse<String> forged = server.callWithToken(promoted, "PUT", "api/mode", "{\"mode\": \"full\"}");
            assertThat(forged.statusCode()).as(forged.body()).isEqualTo(401);
            assertThat(forged.body()).contains("signature does not verify");
            server.stop();
        }
    }
}
