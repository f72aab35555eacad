package io.cyclium.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.ListeningSockets;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The product WAR on a real Payara Micro: schema migrated, node registered, overview rendering rows. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class NodeBootIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployment.productWar();
    }

    @ArquillianResource
    URL base;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                        .header("Authorization", ConsoleUsers.admin()).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void the_schema_is_migrated_to_the_baseline_by_flyway_at_boot() throws Exception {
        try (Connection c = MicroDeployment.database(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT \"version\", \"success\" FROM \"cyclium_schema_history\" WHERE \"version\" = '1'")) {
            assertThat(rs.next()).as("V1 recorded in cyclium_schema_history").isTrue();
            assertThat(rs.getBoolean(2)).isTrue();
        }
    }

    @Test
    void the_node_and_this_test_jvm_listen_on_loopback_only() {
        // Arquillian starts Micro as a child of this JVM; its HTTP listener, its data grid and the
        // H2 file's AUTO_SERVER port (opened by whichever of the two processes came first) must all
        // be on 127.0.0.1: tests use loopback only
        ProcessHandle micro = ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("payara-micro")).findFirst()
                .orElseThrow(() -> new AssertionError("no Payara Micro among this JVM's child processes"));
        List<String> node = ListeningSockets.of(micro.pid());
        assertThat(node).as("the node's listening sockets").isNotEmpty()
                .allSatisfy(a -> assertThat(ListeningSockets.on(a, "127.0.0.1")).as(a + " is on 127.0.0.1").isTrue());
        assertThat(node).as("the HTTP listener is one of them")
                .anySatisfy(a -> assertThat(a).endsWith(":" + base.getPort()));
        assertThat(ListeningSockets.of(ProcessHandle.current().pid())).as("this JVM's listening sockets")
                .allSatisfy(a -> assertThat(ListeningSockets.on(a, "127.0.0.1")).as(a + " is on 127.0.0.1").isTrue());
    }

    @Test
    void the_node_row_carries_the_configured_identity_and_mode() throws Exception {
        try (Connection c = MicroDeployment.database();
             PreparedStatement ps = c.prepareStatement("SELECT mode, started_at, last_seen FROM cyclium_nodes WHERE node_identity = ?")) {
            ps.setString(1, "arquillian-node-1");
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("node row for arquillian-node-1").isTrue();
                assertThat(rs.getString("mode")).isEqualTo("full");
                assertThat(rs.getTimestamp("started_at")).isNotNull();
            }
        }
        HttpResponse<String> self = get("api/nodes/self");
        assertThat(self.statusCode()).isEqualTo(200);
        assertThat(self.body()).contains("\"nodeIdentity\":\"arquillian-node-1\"").contains("\"mode\":\"full\"");
    }

    @Test
    void the_overview_page_renders_real_episode_and_finding_rows_escaped() throws Exception {
        String episodeId = UUID.randomUUID().toString();
        String actor = "boot_check_" + episodeId.substring(0, 8);
        Timestamp now = Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC));
        try (Connection c = MicroDeployment.database()) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO cyclium_episodes (id, actor_id, expectation_id,"
                    + " trigger_type, status, summary, started_at, updated_at) VALUES (?, ?, 'probe', 'manual', 'done', ?, ?, ?)")) {
                ps.setString(1, episodeId);
                ps.setString(2, actor);
                ps.setString(3, "<b>bold</b> & done");
                ps.setTimestamp(4, now);
                ps.setTimestamp(5, now);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO cyclium_findings (id, finding_key, status,"
                    + " finding_class, severity, actor_id, raised_by_episode_id, raised_at, updated_at, summary)"
                    + " VALUES (?, ?, 'active', 'limit_breach', 'high', ?, ?, ?, ?, 'cpu over limit')")) {
                ps.setString(1, UUID.randomUUID().toString());
                ps.setString(2, "limit:" + actor);
                ps.setString(3, actor);
                ps.setString(4, episodeId);
                ps.setTimestamp(5, now);
                ps.setTimestamp(6, now);
                ps.executeUpdate();
            }
        }
        HttpResponse<String> page = get("index.xhtml");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body())
                .contains("arquillian-node-1")
                .contains(actor)
                .contains("&lt;b&gt;bold&lt;/b&gt; &amp; done")
                .doesNotContain("<b>bold</b>")
                .contains("limit:" + actor)
                .contains("cpu over limit");
    }

    @Test
    void the_actors_api_says_why_a_deployed_actor_does_not_run_here() throws Exception {
        HttpResponse<String> actors = get("api/actors");
        assertThat(actors.statusCode()).isEqualTo(200);
        // the demo actors are deployed but switched off in this test node
        assertThat(actors.body()).contains("\"id\":\"resource_monitor\"")
                .contains("demo actors are off (cyclium.demo.enabled=false)");
    }
}
