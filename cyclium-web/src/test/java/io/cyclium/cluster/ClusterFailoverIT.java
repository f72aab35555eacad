package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.actors.ClusterActor;
import io.cyclium.it.Await;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nodes that stop — gracefully, by kill -9, by freezing — never lose or double their work. Two real
 * Payara Micro nodes on one database, each under libfaketime the whole time: node-a's wall clock
 * runs five minutes behind, node-b's five minutes ahead (the JVM's own clock, not an injected
 * one: log stamps, {@code Instant.now()}, everything). That must change nothing: leases and
 * staleness use the database clock, so no lease is ever taken from a live holder.
 *
 * <p>The nodes are shared by the tests of a class (a boot costs tens of seconds), nothing else: each
 * test starts its own episodes, looks only at their rows, and finds both nodes running whatever the
 * test before it stopped or froze — so the tests run in any order.
 */
class ClusterFailoverIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    /** Wall-clock shift of each node under libfaketime, seconds. */
    static final long SKEW_SECONDS = 300;

    /** The node's {@code cyclium_event_batch_rerun_total} (0 before the first rerun). */
    static long batchReruns(ClusterNode node) {
        try {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(node.api().resolve("/metrics?scope=application")).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("GET /metrics on %s", node.name()).isEqualTo(200);
            return r.body().lines().filter(l -> l.startsWith("cyclium_event_batch_rerun_total"))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The product WAR plus the cluster test actor, written once per run. */
    static Path warWithClusterActor() {
        return ClusterHarness.productWarWith("cyclium-cluster-it.war", ClusterActor.class);
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class TwoNodes {

        ClusterHarness cluster;

        abstract HarnessDatabase.Vendor vendor();

        @BeforeAll
        void start() throws Exception {
            cluster = ClusterHarness.on(vendor())
                    .war(warWithClusterActor())
                    .node("node-a", FakeTime.shiftedBy(-SKEW_SECONDS))
                    .node("node-b", FakeTime.shiftedBy(SKEW_SECONDS))
                    .start();
            try (Connection c = cluster.database().connect()) {
                io.cyclium.cluster.actors.DeliveryLog.createTable(c);
            }
        }

        /** Whatever the test before stopped (SIGTERM, kill -9), this one starts with both nodes up. */
        @BeforeEach
        void bothNodesRun() {
            for (ClusterNode node : cluster.nodes()) {
                if (!node.isAlive()) {
                    cluster.restart(node.name());
                }
            }
        }

        @AfterAll
        void stop() {
            if (cluster != null) {
                cluster.close();
            }
        }

        String startOn(String node, String expectation, int steps, int stepMs) {
            HttpReply r = cluster.node(node).post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"" + expectation
                    + "\",\"payload\":{\"steps\":" + steps + ",\"stepMs\":" + stepMs + "},\"idempotencyKey\":\""
                    + UUID.randomUUID() + "\"}");
            assertThat(r.status()).as("start on %s: %s", node, r.body()).isEqualTo(201);
            return r.jsonObject().getString("episodeId");
        }

        Map<String, Object> episode(String id) {
            return cluster.database().query("SELECT status, phase, run_node, attempts, error_class FROM cyclium_episodes"
                    + " WHERE id = ?", id).get(0);
        }

        List<Map<String, Object>> steps(String id) {
            return cluster.database().query("SELECT step_no, kind, node_identity, created_at FROM cyclium_episode_steps"
                    + " WHERE episode_id = ? ORDER BY step_no", id);
        }

        long count(String kind, String id, String node) {
            return steps(id).stream().filter(s -> kind.equals(s.get("kind")) && (node == null || node.equals(s.get("node_identity"))))
                    .count();
        }

        void awaitCheckpoints(String id, int atLeast) {
            Await.until(WAIT, atLeast + " checkpoints of " + id, () -> count("checkpoint", id, null) >= atLeast);
        }

        Map<String, Object> awaitTerminal(String id) {
            return Await.until(WAIT, "episode " + id + " to finish", () -> {
                Map<String, Object> e = episode(id);
                return List.of("done", "failed", "canceled").contains(e.get("status")) ? e : null;
            });
        }

        long deliveries(String id) {
            return cluster.database().query("SELECT node FROM it_deliveries WHERE episode_id = ?", id).size();
        }

        Instant firstStepBy(String id, String kind, String node) {
            return steps(id).stream().filter(s -> kind.equals(s.get("kind")) && node.equals(s.get("node_identity")))
                    .map(s -> ((Timestamp) s.get("created_at")).toLocalDateTime().toInstant(java.time.ZoneOffset.UTC))
                    .findFirst().orElseThrow();
        }

        /** The fence of the episode's lease: 1 = nobody ever took it over. */
        long fence(String id) {
            return cluster.database().query("SELECT c.fence FROM cyclium_work_claims c JOIN cyclium_episodes e"
                    + " ON c.dedupe_key = e.dedupe_key WHERE e.id = ?", id).stream()
                    .mapToLong(r -> ((Number) r.get("fence")).longValue()).max().orElseThrow();
        }

        @Test
        void the_nodes_own_clocks_really_run_five_minutes_behind_and_ahead() {
            // whatever restarts the tests before did, each start's first log stamp shows the shift
            for (ClusterNode node : cluster.nodes()) {
                long expected = node.name().equals("node-a") ? -SKEW_SECONDS : SKEW_SECONDS;
                Duration offset = node.clockOffsetSeenInLog();
                System.out.printf("[figures] %s %s: first log stamp is %d s off the harness clock (shift %d s, boot %d s)%n",
                        vendor(), node.name(), offset.toSeconds(), expected, node.lastBoot().toSeconds());
                assertThat(offset.toSeconds()).as("%s clock offset, s", node.name())
                        .isBetween(expected - 5, expected + node.lastBoot().toSeconds() + 5);
            }
        }

        @Test
        void episodes_on_nodes_ten_minutes_apart_outlive_their_first_lease_and_none_is_taken_from_its_live_holder() {
            List<String> onA = new ArrayList<>();
            List<String> onB = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                // 9 steps of 1 s with a checkpoint after each: longer than the 6 s lease, so renewed
                // by node heartbeats whose clocks are ten minutes apart, while both nodes sweep every second
                onA.add(startOn("node-a", "long_restart", 9, 1000));
                onB.add(startOn("node-b", "long_restart", 9, 1000));
            }
            for (List<String> ids : List.of(onA, onB)) {
                String node = ids == onA ? "node-a" : "node-b";
                for (String id : ids) {
                    Map<String, Object> e = awaitTerminal(id);
                    assertThat(e.get("status")).as("%s", id).isEqualTo("done");
                    assertThat(e.get("run_node")).as("ran where it started").isEqualTo(node);
                    assertThat(((Number) e.get("attempts")).intValue()).as("one attempt").isEqualTo(1);
                    assertThat(fence(id)).as("false steals of %s's lease", id).isEqualTo(1);
                    assertThat(count("resumed", id, null) + count("interrupted", id, null)).isZero();
                    assertThat(steps(id)).allMatch(s -> node.equals(s.get("node_identity")));
                    assertThat(deliveries(id)).isEqualTo(1);
                }
            }
        }

        @Test
        void sigterm_stamps_and_releases_before_exit_and_the_other_node_resumes_from_checkpoints() {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(startOn("node-a", "long_restart", 16, 400));
            }
            ids.forEach(id -> awaitCheckpoints(id, 3));
            // node-b sweeps every second with its clock ten minutes ahead: nothing was stolen so far.
            for (String id : ids) {
                // this episode's lease only: other tests take leases of the same expectation over on purpose
                assertThat(cluster.database().query("SELECT c.fence FROM cyclium_work_claims c JOIN cyclium_episodes e"
                        + " ON c.dedupe_key = e.dedupe_key WHERE e.id = ?", id).stream()
                        .allMatch(r -> ((Number) r.get("fence")).longValue() == 1))
                        .as("no lease taken over while node-a ran").isTrue();
                assertThat(episode(id).get("run_node")).isEqualTo("node-a");
            }
            Instant stop = cluster.sigterm("node-a");
            Instant exited = cluster.waitForExit("node-a", Duration.ofSeconds(60));
            for (String id : ids) {
                // the drain wrote its marker (and stamped and released) before the process was gone
                assertThat(count("interrupted", id, "node-a")).as("interrupted marker of %s", id).isEqualTo(1);
                assertThat(firstStepBy(id, "interrupted", "node-a")).isBeforeOrEqualTo(exited.plusMillis(50));
            }
            for (String id : ids) {
                Map<String, Object> e = awaitTerminal(id);
                assertThat(e.get("status")).isEqualTo("done");
                assertThat(e.get("run_node")).isEqualTo("node-b");
                assertThat(count("resumed", id, "node-b")).isEqualTo(1);
                assertThat(deliveries(id)).as("deliveries of %s", id).isEqualTo(1);
                long workOnA = count("observation", id, "node-a");
                long workOnB = count("observation", id, "node-b");
                // resumed after its last checkpoint: at most the one unsaved unit is done again
                assertThat(workOnA + workOnB).isBetween(16L, 17L);
                assertThat(workOnA).isGreaterThanOrEqualTo(3);
                Duration takeover = Duration.between(exited, firstStepBy(id, "resumed", "node-b"));
                System.out.printf("[figures] %s SIGTERM: stop→exit %d ms, exit→resumed on node-b %d ms (sweep every 1 s, lease 6 s)%n",
                        vendor(), Duration.between(stop, exited).toMillis(), takeover.toMillis());
            }
        }

        @Test
        void kill_9_mid_episode_is_taken_over_after_the_lease_and_policies_and_max_attempts_apply() {
            String restart = startOn("node-a", "long_restart", 14, 400);
            String fail = startOn("node-a", "long_fail", 14, 400);
            String once = startOn("node-a", "long_once", 14, 400);
            List.of(restart, fail, once).forEach(id -> awaitCheckpoints(id, 2));
            Instant killed = cluster.kill9("node-a");
            cluster.waitForExit("node-a", Duration.ofSeconds(30));

            Map<String, Object> r = awaitTerminal(restart);
            assertThat(r.get("status")).isEqualTo("done");
            assertThat(r.get("run_node")).isEqualTo("node-b");
            assertThat(count("interrupted", restart, null)).as("no drain ran").isZero();
            assertThat(deliveries(restart)).isEqualTo(1);
            System.out.printf("[figures] %s kill -9: kill→resumed on node-b %d ms (lease 6 s, stale after 8 s, sweep every 1 s)%n",
                    vendor(), Duration.between(killed, firstStepBy(restart, "resumed", "node-b")).toMillis());

            Map<String, Object> f = awaitTerminal(fail);
            assertThat(f.get("status")).isEqualTo("failed");
            assertThat(f.get("error_class")).isEqualTo("orphaned");
            assertThat(deliveries(fail)).isZero();

            Map<String, Object> o = awaitTerminal(once);
            assertThat(o.get("status")).as("max attempts 1: no restart").isEqualTo("failed");
            assertThat(o.get("error_class")).isEqualTo("orphaned");
            assertThat(count("resumed", once, null)).isZero();
        }
    }

    @Nested
    class OnPostgresql extends TwoNodes {

        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.POSTGRESQL;
        }

        @Test
        void a_frozen_node_loses_its_lease_to_the_other_and_delivers_nothing_when_it_wakes() {
            String id = startOn("node-a", "long_restart", 12, 400);
            awaitCheckpoints(id, 2);
            cluster.pause("node-a");
            long rowsOfAFrozen;
            try {
                // lease 6 s, stale after 8 s: node-b takes it over while node-a is frozen
                Await.until(WAIT, "node-b to take " + id + " over", () -> count("resumed", id, "node-b") == 1);
                rowsOfAFrozen = steps(id).stream().filter(s -> "node-a".equals(s.get("node_identity"))).count();
            } finally {
                // never leave a frozen node to the next test
                cluster.resume("node-a");
            }
            Map<String, Object> e = awaitTerminal(id);
            assertThat(e.get("status")).isEqualTo("done");
            assertThat(e.get("run_node")).isEqualTo("node-b");
            assertThat(deliveries(id)).isEqualTo(1);
            assertThat(cluster.database().query("SELECT node FROM it_deliveries WHERE episode_id = ?", id).get(0).get("node"))
                    .isEqualTo("node-b");
            assertThat(count("output_delivered", id, "node-a")).isZero();
            assertThat(fence(id)).as("taken over once").isEqualTo(2);
            // Woken with its step half done, node-a's task wrote nothing more: it stood down at its
            // next step, told either by its heartbeat (lease gone) or by the journal (step number taken).
            assertThat(steps(id).stream().filter(s -> "node-a".equals(s.get("node_identity"))).count())
                    .as("journal rows of node-a after it woke").isEqualTo(rowsOfAFrozen);
            Await.until(Duration.ofSeconds(30), "node-a's task of " + id + " to stand down", () -> {
                String log = cluster.node("node-a").logOfThisStart();
                return log.contains("Episode " + id + " lost its lease")
                        || log.contains("Episode " + id + ": step") && log.contains("already journaled by another owner");
            });
        }

        /**
         * The same list of events sent to both nodes at once, then a list repeating part of it with
         * new events and one event twice: each node's list goes to the database as JDBC batches,
         * and a key another node or the list itself already holds rolls that transaction back and
         * runs the list the ordinary way. Whatever ran which way: one episode per event, each
         * done and delivered once.
         */
        @Test
        void lists_of_events_posted_to_both_nodes_at_once_and_again_make_one_episode_per_event_delivered_once() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> first = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                first.add("list-" + run + "-" + i);
            }
            List<String> second = new ArrayList<>(first.subList(20, 30));
            for (int i = 30; i < 40; i++) {
                second.add("list-" + run + "-" + i);
            }
            second.add(second.get(second.size() - 1));

            Map<String, String> keys = new java.util.HashMap<>();
            for (HttpReply r : ClusterDedupeIT.postAtOnce(cluster.nodes(), "/events", eventList(first))) {
                keys.putAll(keysByEvent(r));
            }
            keys.putAll(keysByEvent(cluster.node("node-b").post("/events", eventList(second))));
            assertThat(keys).as("a dedupe key for each of the 40 events").hasSize(40);

            for (String key : keys.values()) {
                Map<String, Object> e = Await.until(WAIT, "the episode for " + key + " to be done", () -> {
                    List<Map<String, Object>> rows = cluster.database().query(
                            "SELECT id, status FROM cyclium_episodes WHERE dedupe_key = ?", key);
                    return rows.size() == 1 && "done".equals(rows.get(0).get("status")) ? rows.get(0) : null;
                });
                assertThat(cluster.database().query("SELECT id FROM cyclium_episodes WHERE dedupe_key = ?", key))
                        .as("episodes with key %s", key).hasSize(1);
                assertThat(deliveries((String) e.get("id"))).as("deliveries of %s", key).isEqualTo(1);
            }
            // the second list names one event twice: it cannot have gone through as JDBC batches.
            // Of the two first lists, the one that got the keys first did (the other met them).
            long reruns = cluster.nodes().stream().mapToLong(ClusterFailoverIT::batchReruns).sum();
            assertThat(reruns).as("lists that met a taken key and ran again the ordinary way").isBetween(1L, 2L);
        }

        private static String eventList(List<String> ids) {
            return ids.stream().map(id -> "{\"type\":\"chaos.work\",\"id\":\"" + id
                    + "\",\"payload\":{\"steps\":1,\"stepMs\":10}}").collect(java.util.stream.Collectors.joining(",", "[", "]"));
        }

        /** Event id → the chaos expectation's dedupe key, from a 202 answer to a list. */
        private static Map<String, String> keysByEvent(HttpReply reply) {
            assertThat(reply.status()).as("POST /events: %s", reply).isEqualTo(202);
            Map<String, String> keys = new java.util.HashMap<>();
            for (jakarta.json.JsonObject accepted : reply.jsonObject().getJsonArray("accepted")
                    .getValuesAs(jakarta.json.JsonObject.class)) {
                String key = accepted.getJsonArray("matched").getValuesAs(jakarta.json.JsonObject.class).stream()
                        .filter(m -> "chaos".equals(m.getString("expectation"))).map(m -> m.getString("dedupeKey"))
                        .findFirst().orElseThrow(() -> new AssertionError("chaos did not match: " + accepted));
                String earlier = keys.put(accepted.getString("id"), key);
                assertThat(earlier).as("one key per event").isIn(null, key);
            }
            return keys;
        }

        @Test
        void a_cancel_sent_to_one_node_stops_the_episode_running_on_the_other() {
            String id = startOn("node-a", "long_restart", 60, 300);
            awaitCheckpoints(id, 1);
            HttpReply canceled = cluster.node("node-b").post("/episodes/" + id + "/cancel", "");
            assertThat(canceled.status()).as(canceled.body()).isEqualTo(200);
            Map<String, Object> e = awaitTerminal(id);
            assertThat(e.get("status")).isEqualTo("canceled");
            assertThat(count("episode_failed", id, "node-a")).isEqualTo(1);
            assertThat(deliveries(id)).isZero();
        }

        @Test
        void two_nodes_sweeping_at_once_claim_each_orphan_exactly_once_and_leave_a_quiet_but_leased_episode_alone()
                throws Exception {
            // one step of 14 s: its journal is quiet longer than stale-after (8 s) while node-a's
            // heartbeat keeps its lease live. Only the orphan's work claim tells the sweepers it runs.
            String quietButLive = startOn("node-a", "long_restart", 1, 14000);
            List<String> ids = new ArrayList<>();
            try (Connection c = cluster.database().connect(); Statement s = c.createStatement()) {
                for (int i = 0; i < 20; i++) {
                    String id = UUID.randomUUID().toString();
                    ids.add(id);
                    s.execute("INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, trigger_ref, dedupe_key,"
                            + " status, phase, mode, attempts, max_attempts, turns_used, run_node, cancel_requested, started_at,"
                            + " updated_at) VALUES ('" + id + "', 'cluster_actor', 'long_restart', 'manual',"
                            + " '{\"type\":\"manual\",\"payload\":{\"steps\":1,\"stepMs\":10}}', 'orphan:" + id + "', 'running',"
                            + " 'interrupted', 'live', 1, 3, 0, 'gone-node', false, now(), now())");
                }
            }
            for (String id : ids) {
                Map<String, Object> e = awaitTerminal(id);
                assertThat(e.get("status")).isEqualTo("done");
                assertThat(((Number) e.get("attempts")).intValue()).as("claimed once: attempts went up by one").isEqualTo(2);
                assertThat(count("resumed", id, null)).isEqualTo(1);
                assertThat(deliveries(id)).isEqualTo(1);
            }
            Map<String, Object> quiet = awaitTerminal(quietButLive);
            assertThat(quiet.get("status")).isEqualTo("done");
            assertThat(quiet.get("run_node")).isEqualTo("node-a");
            assertThat(((Number) quiet.get("attempts")).intValue()).isEqualTo(1);
            assertThat(count("resumed", quietButLive, null)).as("never restarted while node-a ran it").isZero();
            assertThat(fence(quietButLive)).isEqualTo(1);
            assertThat(deliveries(quietButLive)).isEqualTo(1);
        }
    }

    @Nested
    @ExtendWith(MariadbRotation.class)
    class OnMariadb extends TwoNodes {

        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.MARIADB;
        }
    }
}
