package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.actors.ClusterActor;
import io.cyclium.cluster.actors.DeliveryLog;
import io.cyclium.cluster.claims.JournaledWorkClaims;
import io.cyclium.it.Await;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An application replaces the claims adapter with a CDI bean of its own ({@link JournaledWorkClaims},
 * {@code @Alternative @Priority}): a real node takes its episodes' leases through it, and its drain
 * at SIGTERM gives them up through it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplacedClaimsIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    ClusterHarness cluster;

    @BeforeAll
    void start() throws Exception {
        cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .war(ClusterHarness.productWarWith("cyclium-replaced-claims-it.war", ClusterActor.class, JournaledWorkClaims.class))
                // No retention timer: after its daily time (03:30 UTC) a fresh node's catch-up run
                // holds the day's maintenance claim through the same adapter, and a drain while it
                // ran released two claims instead of the episode's one (seen at 06:14 UTC)
                .env("CYCLIUM_RETENTION_ENABLED", "false")
                .node("node-a")
                .start();
        try (Connection c = cluster.database().connect()) {
            DeliveryLog.createTable(c);
            JournaledWorkClaims.createTable(c);
        }
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    String start(int steps, int stepMs) {
        HttpReply r = cluster.node("node-a").post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_restart\","
                + "\"payload\":{\"steps\":" + steps + ",\"stepMs\":" + stepMs + "},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.jsonObject().getString("episodeId");
    }

    String dedupeKey(String id) {
        return (String) cluster.database().query("SELECT dedupe_key FROM cyclium_episodes WHERE id = ?", id).get(0).get("dedupe_key");
    }

    @Test
    void episodes_take_their_leases_through_the_applications_adapter_and_the_drain_releases_through_it() {
        String quick = start(2, 50);
        Await.until(WAIT, quick + " done", () -> "done".equals(
                cluster.database().query("SELECT status FROM cyclium_episodes WHERE id = ?", quick).get(0).get("status")));
        assertThat(cluster.database().query("SELECT owner_node FROM it_claim_calls WHERE operation = 'acquire' AND claim_key = ?",
                dedupeKey(quick))).as("the episode's lease went through the replacement").containsExactly(Map.of("owner_node", "node-a"));
        assertThat(cluster.database().query("SELECT state FROM cyclium_work_claims WHERE dedupe_key = ?", dedupeKey(quick)))
                .containsExactly(Map.of("state", "done"));

        String running = start(40, 500);
        Await.until(WAIT, running + " to checkpoint", () -> !cluster.database().query(
                "SELECT 1 FROM cyclium_episode_steps WHERE episode_id = ? AND kind = 'checkpoint'", running).isEmpty());
        cluster.sigterm("node-a");
        cluster.waitForExit("node-a", Duration.ofSeconds(60));

        // expired (released), not a live lease left to lapse: the drain went through the adapter
        assertThat(cluster.database().query("SELECT state FROM cyclium_work_claims WHERE dedupe_key = ?", dedupeKey(running)))
                .containsExactly(Map.of("state", "expired"));
        assertThat(cluster.database().query("SELECT operation FROM it_claim_calls WHERE owner_node = 'node-a'"
                + " AND operation LIKE 'releaseAll:%'")).as("the drain's release, through the adapter")
                .containsExactly(Map.of("operation", "releaseAll:1"));
    }
}
