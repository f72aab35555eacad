package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code cyclium.security.identity=server} on a real Payara Micro: users come from the server's
 * file realm (two users made by post-boot {@code create-file-user}, one in group cyclium-admin,
 * one in cyclium-viewer), their groups are the roles — the viewer reads but cannot change or
 * approve anything, the admin can and the audit trail names them — and the built-in accounts no
 * longer exist (the built-in viewer's password is refused). Repeated wrong passwords for one user from one address are answered 429 with
 * Retry-After, the right password included, until the wait is over.
 */
class ServerRealmIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> call(ClusterNode node, String method, String path, String authorization, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/cyclium/api" + path))
                .timeout(Duration.ofSeconds(20)).header("Authorization", authorization);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void users_and_roles_come_from_the_servers_file_realm_and_a_viewer_cannot_change_anything() throws Exception {
        String alicePassword = "alice-" + UUID.randomUUID();
        String bobPassword = "bob-" + UUID.randomUUID();
        Path dir = Files.createDirectories(Path.of("target/cluster/server-realm-" + UUID.randomUUID()));
        Path alice = Files.writeString(dir.resolve("alice.pw"), "AS_ADMIN_USERPASSWORD=" + alicePassword + "\n");
        Path bob = Files.writeString(dir.resolve("bob.pw"), "AS_ADMIN_USERPASSWORD=" + bobPassword + "\n");
        // the harness probes every node as "admin" with CYCLIUM_ADMIN_PASSWORD: the realm has that user too
        String adminPassword = "admin-" + UUID.randomUUID();
        Path admin = Files.writeString(dir.resolve("admin.pw"), "AS_ADMIN_USERPASSWORD=" + adminPassword + "\n");
        Path users = Files.writeString(dir.resolve("users.asadmin"),
                "create-file-user --groups=cyclium-admin --passwordfile=${ENV=REALM_ADMIN_PASSWORD_FILE} admin\n"
                        + "create-file-user --groups=cyclium-admin --passwordfile=${ENV=REALM_ALICE_PASSWORD_FILE} alice\n"
                        + "create-file-user --groups=cyclium-viewer --passwordfile=${ENV=REALM_BOB_PASSWORD_FILE} bob\n");
        String builtinViewerPassword = "viewer-" + UUID.randomUUID();
        try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .war(ClusterHarness.productWarWith("cyclium-server-realm-it.war"))
                .env("CYCLIUM_SECURITY_IDENTITY", "server")
                // the shipped default: the harness raises it for the other tests
                .env("CYCLIUM_SECURITY_FAILED_LOGINS_BEFORE_DELAY", "3")
                .env("CYCLIUM_ADMIN_PASSWORD", adminPassword)
                .env("CYCLIUM_VIEWER_PASSWORD", builtinViewerPassword)
                .env("REALM_ADMIN_PASSWORD_FILE", admin.toAbsolutePath().toString())
                .env("REALM_ALICE_PASSWORD_FILE", alice.toAbsolutePath().toString())
                .env("REALM_BOB_PASSWORD_FILE", bob.toAbsolutePath().toString())
                .postBoot(users)
                .node("node-a")
                .start()) {
            ClusterNode node = cluster.node("node-a");
            String asAlice = basic("alice", alicePassword);
            String asBob = basic("bob", bobPassword);

            assertThat(call(node, "GET", "/episodes", asAlice, null).statusCode()).as("the realm's admin reads").isEqualTo(200);
            assertThat(call(node, "GET", "/episodes", asBob, null).statusCode()).as("the realm's viewer reads").isEqualTo(200);
            HttpResponse<String> bobSwitches = call(node, "PUT", "/mode", asBob, "{\"mode\": \"full\"}");
            assertThat(bobSwitches.statusCode()).as(bobSwitches.body()).isEqualTo(403);
            HttpResponse<String> bobApproves = call(node, "POST", "/episodes/" + UUID.randomUUID() + "/approve", asBob,
                    "{\"planHash\": \"" + "0".repeat(64) + "\"}");
            assertThat(bobApproves.statusCode()).as("a viewer cannot approve").isEqualTo(403);
            HttpResponse<String> aliceSwitches = call(node, "PUT", "/mode", asAlice, "{\"mode\": \"full\"}");
            assertThat(aliceSwitches.statusCode()).as(aliceSwitches.body()).isEqualTo(200);
            assertThat(call(node, "GET", "/audit?user=alice&action=node.mode", asBob, null).body())
                    .contains("\"user\":\"alice\"").contains("\"outcome\":\"ok\"");
            assertThat(call(node, "GET", "/episodes", basic("viewer", builtinViewerPassword), null).statusCode())
                    .as("the built-in viewer is off when the server's realm decides").isEqualTo(401);
            assertThat(call(node, "GET", "/audit?user=bob&action=node.mode", asAlice, null).body())
                    .as("the viewer's switch, refused by the container for its role, is in the trail")
                    .contains("\"outcome\":\"refused\"").contains("needs the role cyclium-admin");
            HttpResponse<String> bearer = call(node, "GET", "/episodes", "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln", null);
            assertThat(bearer.statusCode()).isEqualTo(401);
            assertThat(bearer.body()).as("a bearer token without oidc")
                    .contains("bearer tokens are taken only with cyclium.security.identity=oidc; this node uses server");

            for (int i = 0; i < 3; i++) {
                assertThat(call(node, "GET", "/episodes", basic("bob", "guess-" + i), null).statusCode()).isEqualTo(401);
            }
            HttpResponse<String> slowed = call(node, "GET", "/episodes", asBob, null);
            assertThat(slowed.statusCode()).as("the right password, too early").isEqualTo(429);
            assertThat(slowed.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(slowed.body()).contains("too many failed logins");
            assertThat(call(node, "GET", "/episodes", asAlice, null).statusCode()).as("other users are not slowed").isEqualTo(200);
            Thread.sleep(1_100);
            assertThat(call(node, "GET", "/episodes", asBob, null).statusCode()).as("after the wait").isEqualTo(200);
        }
    }
}
