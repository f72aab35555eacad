package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.actors.ClusterActor;
import io.cyclium.it.Await;
import jakarta.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A rolling deploy's hazard on three real Payara Micro nodes sharing PostgreSQL: node-v1 deploys
 * version 1 of an expectation, node-v2a and node-v2b version 2 (two builds of the application, the
 * same actor and expectation). node-v1 is killed with {@code kill -9} in the middle of an episode
 * that has checkpoints: the version 2 nodes sweep it as an orphan but do not resume its version 1
 * checkpoints on their code — the episode waits, and says so in the API — and node-v1, started
 * again, resumes and finishes it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class VersionedRecoveryIT {

    static final Duration WAIT = Duration.ofMinutes(3);

    ClusterHarness cluster;

    @BeforeAll
    void start() throws Exception {
        Path v1 = ClusterHarness.productWarWith("cyclium-versioned-v1-it.war", ClusterActor.class,
                io.cyclium.cluster.versioned.v1.VersionedActor.class);
        Path v2 = ClusterHarness.productWarWith("cyclium-versioned-v2-it.war", ClusterActor.class,
                io.cyclium.cluster.versioned.v2.VersionedActor.class);
        cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .node("node-v1", Map.of(), v1)
                .node("node-v2a", Map.of(), v2)
                .node("node-v2b", Map.of(), v2)
                .start();
        try (Connection c = cluster.database().connect()) {
            io.cyclium.cluster.actors.DeliveryLog.createTable(c);
        }
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    Map<String, Object> episode(String id) {
        return cluster.database().query("SELECT status, attempts, run_node, expectation_version, recovery_waiting"
                + " FROM cyclium_episodes WHERE id = ?", id).get(0);
    }

    /** Journal rows of {@code kind} (any kind when null) written by {@code node}. */
    long steps(String id, String kind, String node) {
        return cluster.database().query("SELECT kind, node_identity FROM cyclium_episode_steps WHERE episode_id = ?", id)
                .stream().filter(s -> (kind == null || kind.equals(s.get("kind"))) && node.equals(s.get("node_identity")))
                .count();
    }

    @Test
    void an_episode_of_version_1_whose_node_died_waits_on_version_2_nodes_and_a_version_1_node_resumes_it() {
        HttpReply started = cluster.node("node-v1").post("/episodes", "{\"actor\":\"versioned_actor\",\"expectation\":"
                + "\"work\",\"payload\":{\"steps\":30,\"stepMs\":400},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
        assertThat(started.status()).as("start on node-v1: %s", started.body()).isEqualTo(201);
        String id = started.jsonObject().getString("episodeId");
        assertThat(episode(id).get("expectation_version")).as("recorded at its start").isEqualTo("1");
        Await.until(WAIT, "2 checkpoints of " + id + " on node-v1", () -> steps(id, "checkpoint", "node-v1") >= 2);

        Instant killed = cluster.kill9("node-v1");
        cluster.waitForExit("node-v1", Duration.ofSeconds(30));

        // stale after 8 s, a sweep every second on each version 2 node: both see the orphan
        JsonObject waiting = Await.until(WAIT, "episode " + id + " waiting for version 1", () -> {
            JsonObject e = cluster.node("node-v2a").get("/episodes/" + id).jsonObject().getJsonObject("episode");
            return e.containsKey("recoveryWaiting") && !e.isNull("recoveryWaiting") ? e : null;
        });
        Duration seen = Duration.between(killed, Instant.now());
        assertThat(waiting.getString("recoveryWaiting")).startsWith("waits for a node that deploys versioned_actor/work version 1 (node-v2")
                .endsWith("deploys version 2)");
        assertThat(waiting.getString("expectationVersion")).isEqualTo("1");
        assertThat(waiting.getString("status")).isEqualTo("running");

        // many more sweeps of both version 2 nodes: still nothing runs it
        long attempts = ((Number) episode(id).get("attempts")).longValue();
        PrivateDatabaseServer.sleep(15_000);
        Map<String, Object> still = episode(id);
        assertThat(still.get("status")).isEqualTo("running");
        assertThat(((Number) still.get("attempts")).longValue()).as("no node started another run").isEqualTo(attempts);
        for (String v2 : List.of("node-v2a", "node-v2b")) {
            assertThat(steps(id, null, v2)).as("%s wrote nothing in its journal", v2).isZero();
            assertThat(cluster.node(v2).logOfThisStart()).as("%s said why, in its log", v2)
                    .contains("Episode " + id + " is orphaned and restartable, but it waits for a node that deploys"
                            + " versioned_actor/work version 1");
        }

        Duration boot = cluster.restart("node-v1");
        Map<String, Object> done = Await.until(WAIT, "episode " + id + " done on node-v1", () -> {
            Map<String, Object> e = episode(id);
            return "done".equals(e.get("status")) ? e : null;
        });
        assertThat(done.get("run_node")).isEqualTo("node-v1");
        assertThat(done.get("recovery_waiting")).as("cleared when node-v1 claimed it").isNull();
        assertThat(steps(id, "resumed", "node-v1") + steps(id, "restarted", "node-v1")).as("resumed by node-v1").isPositive();
        for (String v2 : List.of("node-v2a", "node-v2b")) {
            assertThat(steps(id, null, v2)).as("%s never ran it", v2).isZero();
        }
        assertThat(cluster.database().query("SELECT node FROM it_deliveries WHERE episode_id = ?", id)).hasSize(1);
        System.out.printf("[figures] versioned recovery: kill -9 -> waiting seen on node-v2a %d ms; node-v1 boot %d ms%n",
                seen.toMillis(), boot.toMillis());
    }
}
