package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A workflow step survives its node: one Payara Micro node on PostgreSQL, killed with
 * {@code kill -9} and started again. {@code cluster_retry}'s only step fails its first attempt and
 * is due again 20 s later; the node dies while the retry waits, and the retry — nothing but a row
 * with its due time — runs on the new life, once, not before it was due. And a step on every
 * default ({@code defaults_flow}: recovery {@code FAIL}, one attempt) whose node dies while its
 * episode runs is queued again by recovery and its instance completes, with that one episode.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowRetryRestartIT {

    ClusterHarness cluster;

    @BeforeAll
    void start() {
        cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL).war(ClusterFailoverIT.warWithClusterActor()).node("node-a").start();
        // where LongWork's output lands (the defaults step's episode ends with one)
        try (java.sql.Connection c = cluster.database().connect()) {
            io.cyclium.cluster.actors.DeliveryLog.createTable(c);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
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

    @Test
    void a_step_retry_waiting_in_its_column_runs_after_a_kill_9_and_restart_of_the_only_node() {
        String subject = "restart-" + UUID.randomUUID();
        HttpReply r = cluster.node("node-a").post("/workflows/cluster_retry/instances",
                "{\"payload\": {\"subject\": \"" + subject + "\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.jsonObject().getString("id");

        Map<String, Object> waiting = Await.until(Duration.ofMinutes(2), "the step failed, its retry due", () -> {
            List<Map<String, Object>> rows = q("SELECT state, attempt, next_attempt_at FROM cyclium_workflow_steps"
                    + " WHERE instance_id = ? AND step_id = 'flaky' AND state = 'failed' AND next_attempt_at IS NOT NULL", id);
            return rows.isEmpty() ? null : rows.get(0);
        });
        Timestamp due = (Timestamp) waiting.get("next_attempt_at");
        cluster.kill9("node-a");
        Duration boot = cluster.restart("node-a");

        Await.until(Duration.ofMinutes(3), "the instance completed on the node's new life", () -> "completed".equals(
                q("SELECT status FROM cyclium_workflow_instances WHERE id = ?", id).get(0).get("status")) ? true : null);
        List<Map<String, Object>> episodes = q("SELECT dedupe_key, status, started_at FROM cyclium_episodes"
                + " WHERE workflow_instance_id = ? ORDER BY started_at", id);
        assertThat(episodes).extracting(e -> e.get("dedupe_key")).containsExactly("workflow:" + id + ":flaky:1",
                "workflow:" + id + ":flaky:2");
        assertThat(episodes).extracting(e -> e.get("status")).containsExactly("failed", "done");
        Timestamp retried = (Timestamp) episodes.get(1).get("started_at");
        assertThat(retried).as("the retry started no earlier than its due time").isAfterOrEqualTo(
                new Timestamp(due.getTime() - 50));
        System.out.printf("[figures] retry due %s survived kill -9 and a restart (boot %d s); attempt 2 started %s%n", due,
                boot.toSeconds(), retried);
    }

    @Test
    void a_step_on_the_defaults_whose_node_died_mid_episode_is_queued_again_and_its_instance_completes() {
        String subject = "defaults-" + UUID.randomUUID();
        // 30 units of 400 ms with a checkpoint after each: the kill lands after some ran, long before the end
        HttpReply r = cluster.node("node-a").post("/workflows/defaults_flow/instances",
                "{\"payload\": {\"subject\": \"" + subject + "\", \"steps\": 30, \"stepMs\": 400}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        String id = r.jsonObject().getString("id");
        String episode = Await.until(Duration.ofMinutes(2), "the step's episode ran some of its work", () -> {
            List<Map<String, Object>> rows = q("SELECT e.id FROM cyclium_episodes e WHERE e.workflow_instance_id = ?"
                    + " AND (SELECT COUNT(*) FROM cyclium_episode_steps s WHERE s.episode_id = e.id) >= 3", id);
            return rows.isEmpty() ? null : (String) rows.get(0).get("id");
        });
        cluster.kill9("node-a");
        Duration boot = cluster.restart("node-a");

        Map<String, Object> ended = Await.until(Duration.ofMinutes(3), "the instance ended on the node's new life", () -> {
            Map<String, Object> i = q("SELECT status, error_detail FROM cyclium_workflow_instances WHERE id = ?", id).get(0);
            return List.of("completed", "failed", "canceled").contains(i.get("status")) ? i : null;
        });
        assertThat(ended.get("status")).as("the instance, not failed by its node's death: " + ended.get("error_detail"))
                .isEqualTo("completed");
        // the same step attempt and the same episode, restarted by recovery from its last checkpoint: not a retry
        assertThat(q("SELECT state, attempt FROM cyclium_workflow_steps WHERE instance_id = ?", id))
                .containsExactly(Map.of("state", "completed", "attempt", 1));
        List<Map<String, Object>> episodes = q("SELECT id, status, attempts FROM cyclium_episodes WHERE workflow_instance_id = ?", id);
        assertThat(episodes).hasSize(1);
        assertThat(episodes.get(0)).containsEntry("id", episode).containsEntry("status", "done").containsEntry("attempts", 2);
        System.out.printf("[figures] a step on the defaults survived kill -9 mid-episode and a restart (boot %d s)%n",
                boot.toSeconds());
    }
}
