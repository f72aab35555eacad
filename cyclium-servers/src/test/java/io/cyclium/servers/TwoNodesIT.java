package io.cyclium.servers;

import static io.cyclium.servers.EarSmokeIT.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.servers.ServerDatabase.Kind;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two standalone instances of the same full server on one PostgreSQL database — the cluster is
 * the database, the servers' own clustering is off — run one episode per trigger, (WildFly) see each
 * other's retention runs, also in the one JBeret job repository in that database, and finish each
 * other's work after a {@code kill -9}.
 */
@ExtendWith(MatrixRotation.class)
@Tag("matrix")
class TwoNodesIT {

    private static final Map<String, String> FAST_FAILOVER = Map.of(
            "cyclium.work-claims.lease-seconds", "6",
            "cyclium.recovery.initial-delay-ms", "2000",
            "cyclium.recovery.interval-ms", "1000",
            "cyclium.recovery.stale-after-ms", "8000",
            "cyclium.episode.shutdown-ms", "3000",
            "cyclium.demo.enabled", "true");

    @Test
    void two_payara_servers_share_the_work_and_recover_each_other() {
        twoNodes("payara");
    }

    @Test
    void two_wildfly_servers_share_the_work_and_recover_each_other() {
        twoNodes("wildfly");
    }

    private void twoNodes(String kind) {
        Path dir = EarSmokeIT.SERVERS.resolve("runs").resolve(kind + "-two-" + UUID.randomUUID().toString().substring(0, 6));
        try (ServerDatabase db = ServerDatabase.create(Kind.POSTGRESQL, dir);
             FullServer a = EarSmokeIT.server(kind, kind + "-a", dir.resolve("a"), db, FAST_FAILOVER);
             FullServer b = EarSmokeIT.server(kind, kind + "-b", dir.resolve("b"), db, FAST_FAILOVER)) {
            Path ear = EarSmokeIT.smokeArchive(kind, dir);
            Instant begin = Instant.now();
            // side by side: each server's scripts spend most of their time waiting on the server
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> b.install(ear));
            try {
                a.install(ear);
            } finally {
                // b's install ends (either way) before anything is closed: closing while it still ran
                // dropped the database under it and left its server, not yet in its pid file, running
                second.exceptionally(e -> null).join();
            }
            second.join();
            System.out.printf("[%s] two nodes up in %d s%n", kind, Duration.between(begin, Instant.now()).toSeconds());

            // the same five events on both nodes: five episodes, each run once. Five resources: the
            // demo monitor debounces per resource (1 s), so five events of one resource would be one episode
            List<String> keys = new java.util.ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                String event = "{\"type\":\"resource.updated\",\"id\":\"twice-" + i + "\",\"payload\":{\"resource\":\"cache-" + i + "\"}}";
                String key = null;
                for (FullServer node : List.of(a, b)) {
                    HttpResponse<String> r = node.post("api/events", event);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    java.util.regex.Matcher m = EarSmokeIT.DEDUPE_KEY.matcher(r.body());
                    assertThat(m.find()).as(r.body()).isTrue();
                    assertThat(key == null ? m.group(1) : key).as("both nodes compute the same dedupe key").isEqualTo(m.group(1));
                    key = m.group(1);
                }
                keys.add(key);
            }
            for (String key : keys) {
                await("the episode of " + key + " done", Duration.ofSeconds(90), () -> db.count(
                        "SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ? AND status = 'done'", key) == 1);
                assertThat(db.count("SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ?", key))
                        .as("one episode per trigger across both nodes").isEqualTo(1);
            }

            // WildFly: retention run now on each node is listed by the other, and both executions are
            // rows of the one JBeret repository in the database (configure.sh), under distinct ids. In
            // memory, each node would have no table to query and would number its executions from 1.
            // Not on Payara Server: its domain keeps its own repository, and POST /maintenance/retention
            // answered 500 there (EntityManagerFactory for unit cyclium not found from the WAR's request).
            if (a.keepsBatchJobsInTheDatabase()) {
                long onA = EarSmokeIT.retentionRunIsRecorded(a, b, db);
                long onB = EarSmokeIT.retentionRunIsRecorded(b, a, db);
                assertThat(onB).as("batch execution ids of %s and %s, both rows of the one repository", a.name(), b.name())
                        .isNotEqualTo(onA);
            }

            // a slow episode on a; a vanishes; b finishes it
            HttpResponse<String> started = a.post("api/episodes", "{\"actor\":\"server_smoke\",\"expectation\":\"slow\","
                    + "\"payload\":{\"steps\":30,\"stepMs\":250},\"idempotencyKey\":\"failover\"}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
            await("the slow episode running on " + a.name(), Duration.ofSeconds(60), () -> db.count(
                    "SELECT COUNT(*) FROM cyclium_episodes e WHERE actor_id = 'server_smoke' AND status = 'running' AND run_node = ?"
                            + " AND EXISTS (SELECT 1 FROM cyclium_episode_steps s WHERE s.episode_id = e.id AND s.kind = 'checkpoint')",
                    a.name()) == 1);
            a.kill9();
            Instant killed = Instant.now();
            await("the slow episode done on " + b.name(), Duration.ofSeconds(120), () -> db.count(
                    "SELECT COUNT(*) FROM cyclium_episodes WHERE actor_id = 'server_smoke' AND status = 'done' AND run_node = ?",
                    b.name()) == 1);
            System.out.printf("[%s] %s finished %s's episode %d s after kill -9%n", kind, b.name(), a.name(),
                    Duration.between(killed, Instant.now()).toSeconds());
            b.stop();
        }
    }
}
