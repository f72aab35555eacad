package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Workflows on three real nodes sharing PostgreSQL (and, in a second class, MariaDB): a
 * trigger-only node and two full ones. 200
 * instances of the six-step fan-out/fan-in DAG are started across all three (the trigger-only node
 * only creates its instances; full nodes run every step), one full node is killed with
 * {@code kill -9} half way, and every instance still completes with exactly one episode per step
 * attempt.
 */
class WorkflowClusterIT {

    static final int INSTANCES = Integer.getInteger("cyclium.workflow.instances", 200);
    static final Duration WAIT = Duration.ofMinutes(10);

    /** One cluster per database, one after the other: never two clusters' processes at once. */
    @org.junit.jupiter.api.Nested
    class OnPostgresql extends Scenario {
        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.POSTGRESQL;
        }
    }

    @org.junit.jupiter.api.Nested
    @ExtendWith(MariadbRotation.class)
    class OnMariadb extends Scenario {
        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.MARIADB;
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Scenario {

        ClusterHarness cluster;

        abstract HarnessDatabase.Vendor vendor();

        @BeforeAll
        void start() throws Exception {
            cluster = ClusterHarness.on(vendor())
                    .war(ClusterFailoverIT.warWithClusterActor())
                    .env("CYCLIUM_TRIGGER_POLL_INTERVAL_MS", "300")
                    .env("CYCLIUM_TRIGGER_POLL_BATCH_SIZE", "50")
                    .node("node-t", Map.of("CYCLIUM_MODE", "trigger_only"))
                    .node("node-a")
                    .node("node-b")
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

        private List<Map<String, Object>> q(String sql, Object... params) {
            return cluster.database().query(sql, params);
        }

        private static long n(Object o) {
            return ((Number) o).longValue();
        }

        @Test
        void two_hundred_instances_complete_across_a_trigger_only_node_and_a_kill_9_with_one_episode_per_step_attempt() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<ClusterNode> starters = List.of(cluster.node("node-t"), cluster.node("node-a"), cluster.node("node-b"));
            Instant t0 = Instant.now();
            Instant killedAt = null;
            for (int i = 0; i < INSTANCES; i++) {
                if (i == INSTANCES / 2) {
                    killedAt = cluster.kill9("node-b");
                    starters = List.of(cluster.node("node-t"), cluster.node("node-a"));
                }
                ClusterNode node = starters.get(i % starters.size());
                HttpReply r = node.post("/workflows/cluster_fanout/instances",
                        "{\"payload\": {\"subject\": \"" + run + "-" + i + "\", \"steps\": 2, \"stepMs\": 100}}");
                assertThat(r.status()).as(node.name() + ": " + r.body()).isEqualTo(201);
            }
            Await.until(WAIT, INSTANCES + " instances completed", () -> n(q("SELECT COUNT(*) AS n FROM cyclium_workflow_instances"
                    + " WHERE workflow_id = 'cluster_fanout' AND status = 'completed' AND subject_value LIKE ?", run + "-%")
                    .get(0).get("n")) == INSTANCES);
            double seconds = Duration.between(t0, Instant.now()).toMillis() / 1000.0;
            System.out.printf("[figures] workflows on %s: %d instances of a 6-step DAG on 2 full nodes (+1 trigger-only), node-b"
                    + " killed at %s: all completed in %.1f s (%.1f instances/s)%n", vendor(), INSTANCES, killedAt, seconds,
                    INSTANCES / seconds);

            assertThat(q("SELECT status, COUNT(*) AS n FROM cyclium_workflow_instances WHERE subject_value LIKE ?"
                    + " GROUP BY status", run + "-%")).as("nothing failed or is left").hasSize(1);
            // one episode per step attempt, never two: by key, and by (instance, step) against the attempt count
            assertThat(q("SELECT dedupe_key FROM cyclium_episodes WHERE workflow_instance_id IS NOT NULL"
                    + " GROUP BY dedupe_key HAVING COUNT(*) > 1")).isEmpty();
            List<Map<String, Object>> mismatched = q("SELECT s.instance_id, s.step_id, s.attempt, COUNT(e.id) AS episodes"
                    + " FROM cyclium_workflow_steps s JOIN cyclium_workflow_instances i ON i.id = s.instance_id"
                    + " LEFT JOIN cyclium_episodes e ON e.workflow_instance_id = s.instance_id AND e.workflow_step_id = s.step_id"
                    + " WHERE i.subject_value LIKE ? GROUP BY s.instance_id, s.step_id, s.attempt"
                    + " HAVING COUNT(e.id) <> s.attempt", run + "-%");
            assertThat(mismatched).isEmpty();
            assertThat(n(q("SELECT COUNT(*) AS n FROM cyclium_workflow_steps s JOIN cyclium_workflow_instances i"
                    + " ON i.id = s.instance_id WHERE i.subject_value LIKE ? AND s.state = 'completed'", run + "-%").get(0).get("n")))
                    .isEqualTo(6L * INSTANCES);
            // the trigger-only node created instances but ran no step
            assertThat(n(q("SELECT COUNT(*) AS n FROM cyclium_workflow_transitions t JOIN cyclium_workflow_instances i"
                    + " ON i.id = t.instance_id WHERE i.subject_value LIKE ? AND t.to_state = 'pending' AND t.step_id IS NULL"
                    + " AND t.node_identity = 'node-t'", run + "-%").get(0).get("n"))).isGreaterThan(INSTANCES / 4);
            assertThat(q("SELECT DISTINCT e.run_node FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                    + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ?", run + "-%"))
                    .extracting(r -> r.get("run_node")).doesNotContain("node-t");
            List<Map<String, Object>> retried = q("SELECT COUNT(*) AS n FROM cyclium_workflow_steps s JOIN"
                    + " cyclium_workflow_instances i ON i.id = s.instance_id WHERE i.subject_value LIKE ? AND s.attempt > 1", run + "-%");
            // the kill mattered: node-b ran step episodes, and some it was running were resumed elsewhere
            long resumed = n(q("SELECT COUNT(*) AS n FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                    + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ? AND e.attempts > 1", run + "-%").get(0).get("n"));
            assertThat(resumed).as("step episodes node-b was running, resumed by another node").isPositive();
            System.out.printf("[figures] workflows on %s: %d step episode(s) resumed after the kill, %d step(s) needed a second"
                    + " attempt%n", vendor(), resumed, n(retried.get(0).get("n")));
        }
    }
}
