package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import io.cyclium.keys.DedupeKeys;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Durable sleeps and signals on three real Payara Micro nodes sharing PostgreSQL, with the recovery
 * sweep at its default of 30 s: a sleep ends when a node's alarm is due (its DueWakeTimer), not on a sweep.
 *
 * <p>First, on three live nodes, 2-s sleepers stored on every node wake at most 2 s late (lateness
 * p50/p99 printed). Then episodes stored on node A go to sleep there; A is killed with SIGKILL
 * while they sleep and B is drained (SIGTERM) while they are due; C alone wakes every one of them
 * after its due time (it heard the due time in its workflow pulse), half of them then wait for a
 * signal that is sent to C (delivered, or kept when it arrives before the wait), and every episode
 * ends done exactly once with one delivery, the signalled ones with their signal's payload, none
 * before its due time.
 */
class DurableTimersClusterIT {

    static final int EPISODES = 16;
    static final long SLEEP_MS = 12_000;
    /** The short sleepers of the wake-on-time test. */
    static final int SHORT_SLEEPERS = 30;
    static final long SHORT_SLEEP_MS = 2_000;

    /** The only vendor the harness runs this on (the sweep's interval is what the test is about, not SQL). */
    @Nested
    class OnPostgresql extends Timers {
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    abstract static class Timers {

        ClusterHarness cluster;

        @BeforeAll
        void start() throws Exception {
            cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                    .war(ClusterFailoverIT.warWithClusterActor())
                    // the default sweep: a sleep that waited for it would wake up to 30 s late
                    .env("CYCLIUM_RECOVERY_INTERVAL_MS", "30000")
                    .node("node-a")
                    .node("node-b")
                    .node("node-c")
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

        private long count(String sql, Object... params) {
            return ((Number) q(sql, params).get(0).get("n")).longValue();
        }

        private static JsonObject object(String body) {
            return Json.createReader(new StringReader(body)).readObject();
        }

        /**
         * Per episode of {@code in}, how late its sleep's first {@code wait_resolved} row came after its
         * due time ({@code wait_started} + {@code sleepMs}), in ms on the database's clock, sorted.
         */
        private List<Double> lateness(String in, Object[] keys, long sleepMs) {
            return q("SELECT EXTRACT(EPOCH FROM (MIN(r.created_at) - MIN(s.created_at))) * 1000 - " + sleepMs + " AS late"
                    + " FROM cyclium_episodes e JOIN cyclium_episode_steps s ON s.episode_id = e.id AND s.kind = 'wait_started'"
                    + " JOIN cyclium_episode_steps r ON r.episode_id = e.id AND r.kind = 'wait_resolved' AND r.step_no > s.step_no"
                    + " WHERE e.dedupe_key" + in + " GROUP BY e.id", keys).stream()
                    .map(r -> ((Number) r.get("late")).doubleValue()).sorted().toList();
        }

        private static double percentile(List<Double> sorted, double p) {
            return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
        }

        @Test
        @Order(1)
        void two_second_sleepers_stored_on_every_node_wake_at_most_two_seconds_late_with_the_sweep_at_30_s() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<ClusterNode> nodes = cluster.nodes();
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < SHORT_SLEEPERS; i++) {
                String id = run + "-short-" + i;
                keys.add(DedupeKeys.event("cluster_actor", "sleeper", id, "timers.sleep", null));
                HttpReply r = nodes.get(i % nodes.size()).post("/events", "{\"type\":\"timers.sleep\",\"id\":\"" + id
                        + "\",\"payload\":{\"sleepMs\":" + SHORT_SLEEP_MS + "}}");
                assertThat(r.status()).as(r.body()).isEqualTo(202);
                Await.sleep(100); // due times spread over 3 s, as sleepers arrive
            }
            String in = " IN (" + String.join(", ", Collections.nCopies(SHORT_SLEEPERS, "?")) + ")";
            Object[] k = keys.toArray();
            Await.until(Duration.ofMinutes(1), SHORT_SLEEPERS + " short sleepers done", () -> count("SELECT COUNT(*) AS n"
                    + " FROM cyclium_episodes WHERE status = 'done' AND dedupe_key" + in, k) == SHORT_SLEEPERS);
            List<Double> late = lateness(in, k, SHORT_SLEEP_MS);
            assertThat(late).hasSize(SHORT_SLEEPERS);
            System.out.printf(java.util.Locale.ROOT, "[figures] wake lateness of %d 2-s sleepers on 3 nodes (sweep every 30 s):"
                    + " p50 %.0f ms, p99 %.0f ms, max %.0f ms%n", late.size(), percentile(late, 0.50), percentile(late, 0.99),
                    late.get(late.size() - 1));
            assertThat(late.get(0)).as("none woke before its due time (ms late, database clock)").isGreaterThanOrEqualTo(-50.0);
            assertThat(late.get(late.size() - 1)).as("the latest wake, ms after its due time").isLessThanOrEqualTo(2_000.0);
        }

        @Test
        @Order(2)
        void sleepers_survive_a_kill_of_their_node_and_a_drain_and_wake_once_each_with_their_signals() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            ClusterNode a = cluster.node("node-a");
            ClusterNode c = cluster.node("node-c");
            List<String> keys = new ArrayList<>();
            long sentAt = System.currentTimeMillis();
            for (int i = 0; i < EPISODES; i++) {
                String id = run + "-" + i;
                keys.add(DedupeKeys.event("cluster_actor", "sleeper", id, "timers.sleep", null));
                String signal = i % 2 == 0 ? ",\"signal\":\"go\",\"timeoutMs\":120000" : "";
                HttpReply r = a.post("/events", "{\"type\":\"timers.sleep\",\"id\":\"" + id + "\",\"payload\":{\"sleepMs\":"
                        + SLEEP_MS + signal + "}}");
                assertThat(r.status()).as(r.body()).isEqualTo(202);
            }
            String in = " IN (" + String.join(", ", Collections.nCopies(EPISODES, "?")) + ")";
            Object[] k = keys.toArray();
            Await.until(Duration.ofMinutes(1), "every episode asleep", () -> count("SELECT COUNT(*) AS n FROM cyclium_episodes e"
                    + " JOIN cyclium_waits w ON w.episode_id = e.id WHERE e.status = 'blocked' AND w.kind = 'sleep' AND e.dedupe_key"
                    + in, k) == EPISODES);
            assertThat(q("SELECT DISTINCT e.run_node FROM cyclium_episodes e WHERE e.dedupe_key" + in, k))
                    .extracting(r -> r.get("run_node")).as("they slept on node-a").containsExactly("node-a");

            cluster.kill9("node-a");
            // the drain of node-b around the due time: it must neither lose nor take them
            long untilDue = sentAt + SLEEP_MS - System.currentTimeMillis();
            Await.sleep(Math.max(0, untilDue - 1_000));
            cluster.sigterm("node-b");
            cluster.waitForExit("node-b", Duration.ofSeconds(60));

            List<String> ids = q("SELECT id FROM cyclium_episodes WHERE dedupe_key" + in + " ORDER BY dedupe_key", k).stream()
                    .map(r -> (String) r.get("id")).toList();
            List<String> signalled = q("SELECT e.id FROM cyclium_episodes e WHERE e.trigger_ref LIKE '%\"signal\":\"go\"%'"
                    + " AND e.dedupe_key" + in, k).stream().map(r -> (String) r.get("id")).toList();
            assertThat(signalled).hasSize(EPISODES / 2);
            int delivered = 0;
            int kept = 0;
            // half of them now, while they still sleep (kept for their wait), half once they wait (delivered)
            int half = signalled.size() / 2;
            for (int i = 0; i < signalled.size(); i++) {
                if (i == half) {
                    List<String> rest = signalled.subList(half, signalled.size());
                    String restIn = " IN (" + String.join(", ", Collections.nCopies(rest.size(), "?")) + ")";
                    Await.until(Duration.ofMinutes(2), "the other half waiting for go", () -> count("SELECT COUNT(*) AS n"
                            + " FROM cyclium_waits WHERE kind = 'wait' AND name = 'go' AND episode_id" + restIn, rest.toArray())
                            == rest.size());
                }
                HttpReply r = c.post("/episodes/" + signalled.get(i) + "/signals/go", "{\"payload\":{\"n\":" + i + "}}");
                assertThat(r.status()).as(r.body()).isIn(200, 202);
                if (r.status() == 200) {
                    delivered++;
                } else {
                    kept++;
                }
            }
            assertThat(delivered).as("the second half waited: delivered").isGreaterThanOrEqualTo(signalled.size() - half);
            System.out.printf("[figures] durable timers: %d signals delivered to a waiting episode, %d kept for a wait not yet"
                    + " started%n", delivered, kept);

            Await.until(Duration.ofMinutes(3), EPISODES + " episodes done", () -> count("SELECT COUNT(*) AS n FROM cyclium_episodes"
                    + " WHERE status = 'done' AND dedupe_key" + in, k) == EPISODES);
            List<Double> late = lateness(in, k, SLEEP_MS);
            System.out.printf(java.util.Locale.ROOT, "[figures] wake lateness of %d sleepers whose node was killed, woken by"
                    + " another node (sweep every 30 s): p50 %.0f ms, p99 %.0f ms%n", late.size(), percentile(late, 0.50),
                    percentile(late, 0.99));
            String deliveries = " FROM it_deliveries WHERE episode_id IN (SELECT id FROM cyclium_episodes WHERE dedupe_key" + in + ")";
            Await.until(Duration.ofMinutes(1), "every output delivered", () -> count("SELECT COUNT(*) AS n" + deliveries, k)
                    == EPISODES);
            assertThat(q("SELECT episode_id" + deliveries + " GROUP BY episode_id HAVING COUNT(*) > 1", k)).as("delivered once")
                    .isEmpty();
            assertThat(q("SELECT dedupe_key FROM cyclium_episodes WHERE dedupe_key" + in + " GROUP BY dedupe_key"
                    + " HAVING COUNT(*) > 1", k)).as("one episode per event").isEmpty();
            for (String id : ids) {
                long resolved = count("SELECT COUNT(*) AS n FROM cyclium_episode_steps WHERE episode_id = ? AND kind = 'wait_resolved'", id);
                assertThat(resolved).as("each sleep and wait resolved once: " + id).isEqualTo(signalled.contains(id) ? 2 : 1);
            }
            for (int i = 0; i < signalled.size(); i++) {
                JsonObject detail = object(c.get("/episodes/" + signalled.get(i)).body());
                assertThat(detail.getJsonObject("episode").getString("summary")).as(signalled.get(i))
                        .isEqualTo("waited: {\"n\":" + i + "}");
            }
            assertThat(q("SELECT DISTINCT s.node_identity FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                    + " WHERE s.kind = 'episode_completed' AND e.dedupe_key" + in, k)).extracting(r -> r.get("node_identity"))
                    .as("finished by the nodes that were not killed (node-b only if it woke some before its drain)")
                    .isSubsetOf("node-b", "node-c").contains("node-c");
            // none woke early: the first wake is the sleep's due time or later (database clock)
            assertThat(count("SELECT COUNT(*) AS n FROM cyclium_episode_steps r JOIN cyclium_episode_steps s"
                    + " ON s.episode_id = r.episode_id AND s.kind = 'wait_started' AND s.step_no < r.step_no"
                    + " JOIN cyclium_episodes e ON e.id = r.episode_id WHERE r.kind = 'wait_resolved' AND e.dedupe_key" + in
                    + " AND r.step_no = (SELECT MIN(x.step_no) FROM cyclium_episode_steps x WHERE x.episode_id = r.episode_id"
                    + " AND x.kind = 'wait_resolved') AND r.created_at < s.created_at + INTERVAL '" + (SLEEP_MS - 50)
                    + " milliseconds'", k)).as("woken before due").isZero();
            assertThat(count("SELECT COUNT(*) AS n FROM cyclium_waits w JOIN cyclium_episodes e ON e.id = w.episode_id"
                    + " WHERE e.dedupe_key" + in, k)).as("no wait rows left").isZero();
            assertThat(count("SELECT COUNT(*) AS n FROM cyclium_signals WHERE episode_id IN (SELECT id FROM cyclium_episodes"
                    + " WHERE dedupe_key" + in + ")", k)).as("every kept signal taken").isZero();
        }
    }
}
