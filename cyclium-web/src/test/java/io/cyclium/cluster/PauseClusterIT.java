package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import io.cyclium.keys.DedupeKeys;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pause and resume on three real Payara Micro nodes sharing PostgreSQL (lease 6 s: heartbeat every
 * 2 s). An expectation paused through node A is seen paused by B and C within one heartbeat
 * interval; events sent to B and C meanwhile are accepted (202) and stored, but none of their
 * episodes starts; the resume through A lets every one of them run to done on whichever node
 * stored it, with exactly one episode and one delivery per event. A bulk cancel accepted through
 * node A, which is killed with kill -9 in the middle of it, is continued by B or C once its lease
 * (6 s here, {@code cyclium.bulk.lease-seconds}) lapsed: every item gets one final result.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PauseClusterIT {

    static final int EVENTS = 30;
    static final Duration HEARTBEAT = Duration.ofSeconds(2);
    static final int BULK_ITEMS = 150;
    static final Duration BULK_LEASE = Duration.ofSeconds(6);

    ClusterHarness cluster;

    @BeforeAll
    void start() throws Exception {
        cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .war(ClusterFailoverIT.warWithClusterActor())
                .node("node-a")
                .node("node-b")
                .node("node-c")
                .env("CYCLIUM_BULK_LEASE_SECONDS", Long.toString(BULK_LEASE.toSeconds()))
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

    private static JsonObject object(String body) {
        return Json.createReader(new StringReader(body)).readObject();
    }

    /** Whether {@code node}'s GET /actors shows the chaos expectation of cluster_actor paused. */
    private static boolean seesPaused(ClusterNode node) {
        HttpReply r = node.get("/actors");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonArray actors = Json.createReader(new StringReader(r.body())).readArray();
        return actors.stream().map(JsonObject.class::cast).filter(a -> a.getString("id").equals("cluster_actor"))
                .flatMap(a -> a.getJsonArray("expectations").stream()).map(JsonObject.class::cast)
                .filter(e -> e.getString("id").equals("chaos")).anyMatch(e -> e.getBoolean("paused"));
    }

    /** How long after {@code since} (nanoTime) the node first shows the pause, polling every 50 ms. */
    private static Duration untilPaused(ClusterNode node, long since, Duration limit) {
        long deadline = since + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (seesPaused(node)) {
                return Duration.ofNanos(System.nanoTime() - since);
            }
            Await.sleep(50);
        }
        return null;
    }

    @Test
    void a_pause_through_one_node_stops_starts_on_the_others_within_a_heartbeat_and_the_resume_runs_everything_once() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        ClusterNode a = cluster.node("node-a");
        ClusterNode b = cluster.node("node-b");
        ClusterNode c = cluster.node("node-c");

        HttpReply paused = a.post("/actors/cluster_actor/expectations/chaos/pause", "");
        long pausedAt = System.nanoTime();
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        assertThat(object(paused.body()).getBoolean("paused")).isTrue();
        assertThat(object(paused.body()).getString("target")).isEqualTo("cluster_actor/chaos");
        assertThat(seesPaused(a)).as("the node that took the pause, at once").isTrue();
        Duration seenByB = untilPaused(b, pausedAt, HEARTBEAT.multipliedBy(3));
        Duration seenByC = untilPaused(c, pausedAt, HEARTBEAT.multipliedBy(3));
        System.out.printf("[figures] pause: seen by node-b after %s, by node-c after %s (heartbeat %s)%n", seenByB, seenByC,
                HEARTBEAT);
        // one heartbeat, plus what one GET /actors round trip under load may add to the measurement
        assertThat(seenByB).as("node-b sees the pause").isNotNull().isLessThanOrEqualTo(HEARTBEAT.plusMillis(500));
        assertThat(seenByC).as("node-c sees the pause").isNotNull().isLessThanOrEqualTo(HEARTBEAT.plusMillis(500));

        List<String> keys = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            String id = run + "-" + i;
            keys.add(DedupeKeys.event("cluster_actor", "chaos", id, "chaos.work", null));
            ClusterNode to = i % 2 == 0 ? b : c;
            HttpReply r = to.post("/events", "{\"type\":\"chaos.work\",\"id\":\"" + id
                    + "\",\"payload\":{\"steps\":2,\"stepMs\":50}}");
            assertThat(r.status()).as(to.name() + ": " + r.body()).isEqualTo(202);
        }
        // two heartbeats: long enough for any node to have started one, were it not held
        Await.sleep(HEARTBEAT.multipliedBy(2).toMillis());
        String in = " IN (" + String.join(", ", java.util.Collections.nCopies(EVENTS, "?")) + ")";
        // the outputs' rows name the episode (an output's dedupe key is its own)
        String delivered = " FROM it_deliveries WHERE episode_id IN (SELECT id FROM cyclium_episodes WHERE dedupe_key" + in + ")";
        Object[] k = keys.toArray();
        List<Map<String, Object>> stored = q("SELECT e.id, e.status, e.run_node, e.queued_at FROM cyclium_episodes e"
                + " WHERE e.dedupe_key" + in, k);
        assertThat(stored).as("every event's episode is stored").hasSize(EVENTS);
        assertThat(stored).as("none started: running rows still queued on the node that stored them")
                .allSatisfy(e -> {
                    assertThat(e.get("status")).isEqualTo("running");
                    assertThat(e.get("queued_at")).isNotNull();
                    assertThat(e.get("run_node")).isIn("node-b", "node-c");
                });
        assertThat(n(q("SELECT COUNT(*) AS n FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                + " WHERE e.dedupe_key" + in, k).get(0).get("n"))).as("no step journaled").isZero();
        assertThat(n(q("SELECT COUNT(*) AS n" + delivered, k).get(0).get("n")))
                .isZero();

        HttpReply resumed = a.post("/actors/cluster_actor/expectations/chaos/resume", "");
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        assertThat(object(resumed.body()).getBoolean("paused")).isFalse();
        Await.until(Duration.ofMinutes(3), EVENTS + " episodes done", () -> n(q("SELECT COUNT(*) AS n FROM cyclium_episodes"
                + " WHERE status = 'done' AND dedupe_key" + in, k).get(0).get("n"))
                == EVENTS);
        assertThat(q("SELECT dedupe_key FROM cyclium_episodes WHERE dedupe_key" + in
                + " GROUP BY dedupe_key HAVING COUNT(*) > 1", k)).as("one episode per event").isEmpty();
        Await.until(Duration.ofMinutes(1), "every output delivered", () -> n(q("SELECT COUNT(*) AS n" + delivered, k).get(0)
                .get("n")) == EVENTS);
        assertThat(q("SELECT dedupe_key" + delivered + " GROUP BY dedupe_key HAVING COUNT(*) > 1", k)).as("delivered once").isEmpty();
        assertThat(q("SELECT DISTINCT run_node FROM cyclium_episodes WHERE dedupe_key" + in, k))
                .extracting(r -> r.get("run_node")).as("each ran where it was stored").containsExactlyInAnyOrder("node-b", "node-c");

        // the audit trail names both actions
        assertThat(q("SELECT action, outcome FROM cyclium_audit WHERE subject_id = 'cluster_actor/chaos' ORDER BY occurred_at"))
                .extracting(r -> r.get("action") + " " + r.get("outcome")).containsExactly("expectation.pause ok",
                        "expectation.resume ok");
    }

    /** Whether {@code node}'s GET /workflows shows cluster_fanout paused. */
    private static boolean seesWorkflowPaused(ClusterNode node) {
        HttpReply r = node.get("/workflows");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return Json.createReader(new StringReader(r.body())).readArray().stream().map(JsonObject.class::cast)
                .filter(w -> w.getString("id").equals("cluster_fanout")).anyMatch(w -> w.getBoolean("paused"));
    }

    private long count(String sql, Object... params) {
        return n(q(sql, params).get(0).get("n"));
    }

    @Test
    void a_paused_workflow_keeps_its_instances_in_flight_lets_running_steps_finish_and_starts_nothing_until_the_resume() {
        String run = "wf-" + UUID.randomUUID().toString().substring(0, 8);
        List<ClusterNode> nodes = List.of(cluster.node("node-a"), cluster.node("node-b"), cluster.node("node-c"));
        String payload = "{\"payload\": {\"subject\": \"%s\", \"steps\": 4, \"stepMs\": 400}}";
        for (int i = 0; i < 6; i++) {
            HttpReply r = nodes.get(i % 3).post("/workflows/cluster_fanout/instances", String.format(payload, run + "-old-" + i));
            assertThat(r.status()).as(r.body()).isEqualTo(201);
        }
        String oldEpisodes = "SELECT COUNT(*) AS n FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ?";
        Await.until(Duration.ofMinutes(1), "the first steps running", () -> count(oldEpisodes + " AND e.status = 'running'"
                + " AND e.queued_at IS NULL", run + "-old-%") > 0);

        HttpReply paused = nodes.get(0).post("/workflows/cluster_fanout/pause", "");
        long pausedAt = System.nanoTime();
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        for (ClusterNode other : nodes.subList(1, 3)) {
            long deadline = pausedAt + HEARTBEAT.multipliedBy(3).toNanos();
            while (!seesWorkflowPaused(other) && System.nanoTime() < deadline) {
                Await.sleep(50);
            }
            Duration seen = Duration.ofNanos(System.nanoTime() - pausedAt);
            System.out.printf("[figures] workflow pause: seen by %s after %s%n", other.name(), seen);
            assertThat(seen).as(other.name() + " sees the workflow paused").isLessThanOrEqualTo(HEARTBEAT.plusMillis(500));
        }
        for (int i = 0; i < 6; i++) {
            HttpReply r = nodes.get(1 + i % 2).post("/workflows/cluster_fanout/instances", String.format(payload, run + "-new-" + i));
            assertThat(r.status()).as("a paused workflow still stores instances: " + r.body()).isEqualTo(201);
        }
        // the step episodes running at the pause finish their step; then nothing more starts
        Await.until(Duration.ofMinutes(1), "the running steps finished", () -> count(oldEpisodes + " AND e.status = 'running'",
                run + "-old-%") == 0);
        long oldStarted = count(oldEpisodes, run + "-old-%");
        Await.sleep(HEARTBEAT.multipliedBy(2).toMillis());
        assertThat(count(oldEpisodes, run + "-old-%")).as("no step episode of an old instance started while paused")
                .isEqualTo(oldStarted);
        assertThat(count(oldEpisodes, run + "-new-%")).as("no step episode of a new instance").isZero();
        assertThat(count("SELECT COUNT(*) AS n FROM cyclium_workflow_instances WHERE subject_value LIKE ? AND status = 'running'",
                run + "-%")).as("every instance still in flight").isEqualTo(12);
        assertThat(count("SELECT COUNT(*) AS n FROM cyclium_workflow_steps s JOIN cyclium_workflow_instances i ON i.id = s.instance_id"
                + " WHERE i.subject_value LIKE ? AND s.state = 'queued' AND s.episode_id IS NULL", run + "-%"))
                .as("ready steps queued without an episode").isPositive();

        HttpReply resumed = nodes.get(0).post("/workflows/cluster_fanout/resume", "");
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        Await.until(Duration.ofMinutes(5), "12 instances completed", () -> count("SELECT COUNT(*) AS n FROM cyclium_workflow_instances"
                + " WHERE subject_value LIKE ? AND status = 'completed'", run + "-%") == 12);
        assertThat(q("SELECT s.instance_id, s.step_id, s.attempt, COUNT(e.id) AS episodes FROM cyclium_workflow_steps s"
                + " JOIN cyclium_workflow_instances i ON i.id = s.instance_id LEFT JOIN cyclium_episodes e"
                + " ON e.workflow_instance_id = s.instance_id AND e.workflow_step_id = s.step_id WHERE i.subject_value LIKE ?"
                + " GROUP BY s.instance_id, s.step_id, s.attempt HAVING COUNT(e.id) <> s.attempt", run + "-%"))
                .as("one episode per step attempt").isEmpty();
        assertThat(count("SELECT COUNT(*) AS n FROM cyclium_workflow_steps s JOIN cyclium_workflow_instances i"
                + " ON i.id = s.instance_id WHERE i.subject_value LIKE ? AND s.state = 'completed'", run + "-%")).isEqualTo(6L * 12);
    }

    @Test
    void a_bulk_cancel_whose_node_is_killed_midway_is_finished_by_another_node_with_every_item_processed_once() {
        String run = "bulk-" + UUID.randomUUID().toString().substring(0, 8);
        ClusterNode a = cluster.node("node-a");
        List<ClusterNode> others = List.of(cluster.node("node-b"), cluster.node("node-c"));
        String from = java.time.Instant.now().minusSeconds(5).toString();
        // sleepers for ten minutes: each blocked on its durable sleep, a target a cancel acts on at once
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < BULK_ITEMS; i++) {
            keys.add(DedupeKeys.event("cluster_actor", "sleeper", run + "-" + i, "timers.sleep", null));
            ClusterNode to = others.get(i % 2);
            HttpReply r = to.post("/events", "{\"type\":\"timers.sleep\",\"id\":\"" + run + "-" + i
                    + "\",\"payload\":{\"sleepMs\":600000}}");
            assertThat(r.status()).as(to.name() + ": " + r.body()).isEqualTo(202);
        }
        String filter = "{\"actor\":\"cluster_actor\",\"expectation\":\"sleeper\",\"status\":\"blocked\",\"from\":\"" + from
                + "\"}";
        String mine = " FROM cyclium_episodes WHERE dedupe_key IN (" + String.join(", ", java.util.Collections.nCopies(BULK_ITEMS,
                "?")) + ")";
        Object[] k = keys.toArray();
        Await.until(Duration.ofMinutes(2), BULK_ITEMS + " sleepers blocked", () -> count("SELECT COUNT(*) AS n" + mine
                + " AND status = 'blocked'", k) == BULK_ITEMS);

        HttpReply started = a.post("/bulk-actions", "{\"action\":\"cancel\",\"filter\":" + filter + ",\"expectedCount\":"
                + BULK_ITEMS + "}");
        long startedAt = System.nanoTime();
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = object(started.body()).getString("id");
        String items = "SELECT COUNT(*) AS n FROM cyclium_bulk_items WHERE action_id = ? AND result IN ('done', 'skipped', 'failed')";
        Await.until(Duration.ofMinutes(1), "20 items processed on node-a", () -> count(items, id) >= 20);
        cluster.kill9("node-a");
        long killedAt = System.nanoTime();
        try {
            long beforeKill = count(items, id);
            double rateOnA = beforeKill / ((killedAt - startedAt) / 1e9);
            assertThat(beforeKill).as("killed in the middle of the action").isLessThan(BULK_ITEMS);
            assertThat(q("SELECT claimed_by FROM cyclium_bulk_actions WHERE id = ?", id).get(0).get("claimed_by"))
                    .isEqualTo("node-a");

            // another node takes it over once the lease lapsed (and its next recovery sweep ran)
            // (or it is done already: the new holder may finish between two polls)
            Object taker = Await.until(Duration.ofMinutes(1), "another node holds " + id, () -> {
                Map<String, Object> row = q("SELECT claimed_by, status FROM cyclium_bulk_actions WHERE id = ?", id).get(0);
                Object by = row.get("claimed_by");
                return by != null && !by.equals("node-a") ? by : "done".equals(row.get("status")) ? "(done before a poll saw it)" : null;
            });
            Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
            long atTakeover = count(items, id);
            long takenAt = System.nanoTime();
            Await.until(Duration.ofMinutes(2), id + " done", () -> "done".equals(q("SELECT status FROM cyclium_bulk_actions"
                    + " WHERE id = ?", id).get(0).get("status")));
            double rateAfter = (BULK_ITEMS - atTakeover) / Math.max(0.001, (System.nanoTime() - takenAt) / 1e9);
            System.out.printf("[figures] bulk cancel of %d on three nodes: %d processed on node-a before kill -9 (%.0f items/s),"
                    + " taken over by %s %s after the kill (lease %s), the rest at %.0f items/s%n", BULK_ITEMS, beforeKill, rateOnA,
                    taker, takeover, BULK_LEASE, rateAfter);
            assertThat(takeover).as("lease, plus a recovery sweep and its continuation pass")
                    .isLessThan(BULK_LEASE.plusSeconds(10));

            List<Map<String, Object>> rows = q("SELECT i.item_no, i.result, i.reason, i.finished_at, i.fence, e.status"
                    + " FROM cyclium_bulk_items i JOIN cyclium_episodes e ON e.id = i.episode_id WHERE i.action_id = ?"
                    + " ORDER BY i.item_no", id);
            assertThat(rows).as("one item per episode").hasSize(BULK_ITEMS);
            assertThat(rows).as("every item has its final result").allSatisfy(r -> {
                assertThat(r.get("result")).isIn("done", "skipped");
                assertThat(r.get("finished_at")).isNotNull();
                assertThat(r.get("reason")).isNotNull();
                assertThat(r.get("status")).as("every episode canceled").isEqualTo("canceled");
            });
            List<Map<String, Object>> skipped = rows.stream().filter(r -> r.get("result").equals("skipped")).toList();
            assertThat(skipped).as("only the item node-a may have been in the middle of is skipped, as interrupted")
                    .hasSizeLessThanOrEqualTo(1).allSatisfy(r -> assertThat((String) r.get("reason"))
                            .startsWith("after an interrupted attempt: "));
            assertThat(rows.stream().filter(r -> n(r.get("fence")) == 1).count()).as("items node-a recorded")
                    .isGreaterThanOrEqualTo(beforeKill);
            assertThat(rows.stream().filter(r -> n(r.get("fence")) == 2).count()).as("items the second holder recorded")
                    .isPositive();
            assertThat(count("SELECT COUNT(*) AS n" + mine + " AND status = 'canceled'", k)).isEqualTo(BULK_ITEMS);
            JsonObject action = object(others.get(0).get("/bulk-actions/" + id).body()).getJsonObject("action");
            assertThat(action.getInt("done") + action.getInt("skipped")).isEqualTo(BULK_ITEMS);
            assertThat(action.getInt("pending")).isZero();
        } finally {
            cluster.restart("node-a");
        }
    }
}
