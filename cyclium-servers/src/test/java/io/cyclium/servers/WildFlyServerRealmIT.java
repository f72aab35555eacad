package io.cyclium.servers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.servers.ServerDatabase.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code cyclium.security.identity=server} on a real WildFly 38 (the EAR, set up by
 * server-config/wildfly): users and groups come from the {@code other} domain's ApplicationRealm
 * (application-users.properties / application-roles.properties, as {@code add-user.sh -a -g} writes
 * them); the admin acts, the viewer reads and gets 403 for a change, a wrong password is a 401.
 */
@Tag("matrix")
class WildFlyServerRealmIT {

    @Test
    void users_and_groups_come_from_wildflys_application_realm() throws Exception {
        Path dir = EarSmokeIT.SERVERS.resolve("runs").resolve("wildfly-realm-" + UUID.randomUUID().toString().substring(0, 6));
        String alicePassword = "alice-" + UUID.randomUUID();
        String bobPassword = "bob-" + UUID.randomUUID();
        try (ServerDatabase db = ServerDatabase.create(Kind.H2, dir);
             FullServer server = EarSmokeIT.server("wildfly", "wildfly-realm", dir, db, Map.of(
                     "cyclium.security.identity", "server"))) {
            WildFlyServer wildfly = (WildFlyServer) server;
            wildfly.configure();
            // the harness probes the application as "admin" with CYCLIUM_ADMIN_PASSWORD: the realm has it too
            Path conf = dir.resolve("standalone/configuration");
            addUser(conf, "admin", server.env.get("CYCLIUM_ADMIN_PASSWORD"), "cyclium-admin");
            addUser(conf, "alice", alicePassword, "cyclium-admin");
            addUser(conf, "bob", bobPassword, "cyclium-viewer");
            wildfly.startAndDeploy(EarSmokeIT.smokeArchive("wildfly", dir));
            server.awaitApp(java.time.Duration.ofSeconds(300));

            assertThat(server.callAs("alice", alicePassword, "GET", "api/episodes", null).statusCode())
                    .as("the realm's admin reads").isEqualTo(200);
            assertThat(server.callAs("bob", bobPassword, "GET", "api/episodes", null).statusCode())
                    .as("the realm's viewer reads").isEqualTo(200);
            HttpResponse<String> bobSwitches = server.callAs("bob", bobPassword, "PUT", "api/mode", "{\"mode\": \"full\"}");
            assertThat(bobSwitches.statusCode()).as(bobSwitches.body()).isEqualTo(403);
            HttpResponse<String> aliceSwitches = server.callAs("alice", alicePassword, "PUT", "api/mode", "{\"mode\": \"full\"}");
            assertThat(aliceSwitches.statusCode()).as(aliceSwitches.body()).isEqualTo(200);
            assertThat(server.callAs("bob", bobPassword, "GET", "api/audit?user=alice&action=node.mode", null).body())
                    .contains("\"user\":\"alice\"").contains("\"outcome\":\"ok\"");
            assertThat(server.callAs("bob", "not-" + bobPassword, "GET", "api/episodes", null).statusCode())
                    .as("a wrong password").isEqualTo(401);
            server.stop();
        }
    }

    /** What {@code add-user.sh -a -u user -p password -g group} writes: the realm's digest hash and the group. */
    private static void addUser(Path conf, String user, String password, String group) throws Exception {
        String hash = HexFormat.of().formatHex(MessageDigest.getInstance("MD5")
                .digest((user + ":ApplicationRealm:" + password).getBytes(StandardCharsets.UTF_8)));
        append(conf.resolve("application-users.properties"), user + "=" + hash + "\n");
        append(conf.resolve("application-roles.properties"), user + "=" + group + "\n");
    }

    private static void append(Path file, String line) {
        try {
            Files.writeString(file, line, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
