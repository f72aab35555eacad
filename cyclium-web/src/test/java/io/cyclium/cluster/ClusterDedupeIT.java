package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two real nodes (separate Payara Micro processes) on one database: an event both nodes receive
 * at the same moment becomes one episode, and distinct events become one episode each, every one
 * run by exactly one node. The demo actors run ({@code resource_monitor} is the subject) and their
 * load timer publishes its own events every 20 s, so every check filters by the dedupe keys the
 * 202 answers named.
 */
class ClusterDedupeIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Well after the debounce window (1 s) closed: a second episode, had there been one, would exist by then. */
    private static final Duration BOTH_NODES_HAVE_FIRED = Duration.ofSeconds(4);

    /** One cluster of two nodes per database, shared by the tests of that database. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class TwoNodes {

        ClusterHarness cluster;

        abstract HarnessDatabase.Vendor vendor();

        @BeforeAll
        void start() {
            cluster = ClusterHarness.on(vendor())
                    .env("CYCLIUM_DEMO_ENABLED", "true")
                    .node("node-a")
                    // no console password configured: the node generates one and prints it, and
                    // the harness logs in with what was printed (every call to node-b proves it)
                    .node("node-b", Map.of("CYCLIUM_ADMIN_PASSWORD", "",
                            // and its episodes run on Cyclium's ManagedExecutorService instead of its thread pool
                            "CYCLIUM_EPISODE_EXECUTOR", "managed"))
                    .start();
        }

        /** The done episode with this key; on a timeout, what the database and the nodes' logs hold for it. */
        JsonObject awaitDone(String key) {
            try {
                return Await.until(WAIT, "the episode for " + key + " to be done", () ->
                        withKey(cluster.node("node-b"), key).stream().filter(e -> "done".equals(e.getString("status")))
                                .findFirst().orElse(null));
            } catch (AssertionError timedOut) {
                StringBuilder seen = new StringBuilder(timedOut.getMessage()).append("\nRows with that key: ")
                        .append(cluster.database().query("SELECT id, status, phase, run_node, attempts, error_class,"
                                + " error_detail, started_at, finished_at FROM cyclium_episodes WHERE dedupe_key = ?", key));
                for (ClusterNode node : cluster.nodes()) {
                    seen.append("\n").append(node.name()).append(" logged about it or went wrong:\n");
                    node.logOfThisStart().lines().filter(l -> l.contains(key) || l.contains("WARNING") || l.contains("SEVERE"))
                            .limit(40).forEach(l -> seen.append(l).append('\n'));
                }
                throw new AssertionError(seen.toString(), timedOut);
            }
        }

        @Test
        void a_list_whose_workflow_instance_cannot_be_stored_is_a_503_and_leaves_nothing_of_the_list() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            String workflow = "list_rollback_" + run;
            HttpReply defined = cluster.node("node-a").put("/workflows/" + workflow, "{\"id\":\"" + workflow + "\","
                    + "\"subjectKey\":\"subject\",\"triggers\":[{\"type\":\"event\",\"event\":\"" + workflow + ".start\"}],"
                    + "\"steps\":[{\"id\":\"only\",\"actor\":\"resource_monitor\",\"expectation\":\"check_limits\"}]}");
            assertThat(defined.status()).as(defined.body()).isEqualTo(200);
            String resource = "res-rolled-back-" + run;
            // a subject longer than the instance's subject column: that insert fails in the list's
            // transaction, after the monitor's debounced row for the first event was written in it
            String tooLong = "x".repeat(600);

            HttpReply r = cluster.node("node-a").post("/events", "[" + event("rb-" + run, resource) + ", {\"type\":\""
                    + workflow + ".start\",\"payload\":{\"subject\":\"" + tooLong + "\"}}]");

            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(cluster.database().query("SELECT id FROM cyclium_debounced_triggers WHERE subject = ?", resource))
                    .as("the first event's debounced row went with the list's rollback").isEmpty();
            assertThat(cluster.database().query("SELECT id FROM cyclium_workflow_instances WHERE workflow_id = ?", workflow))
                    .isEmpty();
        }

        @Test
        void a_node_without_a_configured_password_prints_a_generated_one_that_logs_in_and_nothing_else_does() {
            ClusterNode b = cluster.node("node-b");
            String printed = b.generatedPassword().orElseThrow(() -> new AssertionError("node-b printed no generated password"));
            assertThat(printed).hasSizeGreaterThanOrEqualTo(20);
            assertThat(b.getAs("/nodes/self", "admin", printed).status()).isEqualTo(200);
            assertThat(b.getAs("/nodes/self", "admin", "").status()).isEqualTo(401);
            assertThat(b.getAs("/nodes/self", "admin", printed + "x").status()).isEqualTo(401);
            assertThat(cluster.node("node-a").generatedPassword()).as("node-a was given one: nothing generated").isEmpty();
            assertThat(b.getAs("/nodes/self", "admin", cluster.node("node-a").adminPassword().orElseThrow()).status())
                    .as("another node's password").isEqualTo(401);
        }

        @AfterAll
        void stop() {
            if (cluster != null) {
                cluster.close();
            }
        }

        @Test
        void one_event_posted_to_both_nodes_at_once_makes_one_episode_that_completes() {
            // A resource of its own: the demo load ticks on the demo resources, and a tick on ours
            // within the 1 s debounce window would replace our event (one stored row per subject).
            String run = UUID.randomUUID().toString().substring(0, 8);
            String body = event("same-" + run, "res-same-" + run);
            List<HttpReply> replies = postAtOnce(cluster.nodes(), "/events", body);
            Instant posted = Instant.now();
            List<String> keys = replies.stream().map(ClusterDedupeIT::dedupeKey).toList();
            assertThat(keys).as("both nodes compute the same dedupe key").hasSize(2).containsOnly(keys.get(0));
            String key = keys.get(0);

            JsonObject episode = awaitDone(key);
            assertThat(text(episode, "runNode")).isIn("node-a", "node-b");

            // Both nodes stored the event into the subject's one debounced row, and the node that
            // fired it deleted the row in the episode's transaction: one episode, seen from both.
            sleepUntil(posted.plus(BOTH_NODES_HAVE_FIRED));
            for (ClusterNode node : cluster.nodes()) {
                assertThat(withKey(node, key)).as("episodes with key %s seen from %s", key, node.name())
                        .extracting(e -> e.getString("id")).containsExactly(episode.getString("id"));
            }
            assertThat(cluster.database().query("SELECT id FROM cyclium_episodes WHERE dedupe_key = ?", key)).hasSize(1);
        }
    }

    @Nested
    class OnPostgresql extends TwoNodes {

        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.POSTGRESQL;
        }

        // The episode executor belongs to the node, not the database: checked on PostgreSQL only.
        @Test
        void a_node_set_to_the_managed_executor_runs_its_episodes_on_the_executor_the_application_defines() {
            assertThat(cluster.node("node-b").logOfThisStart())
                    .contains("episode tasks on java:app/cyclium/EpisodeExecutor, at most 32 at once");
            assertThat(cluster.node("node-a").logOfThisStart()).contains("episode tasks on a pool of managed threads");
            // the monitor debounces through the database, so whichever node's window closes first runs an
            // event: post to node-b until some of them ran there, and every one of them finished
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> keys = new ArrayList<>();
            List<JsonObject> onB = Await.until(WAIT, "episodes done on node-b", () -> {
                keys.add(dedupeKey(cluster.node("node-b").post("/events",
                        event("managed-" + run + "-" + keys.size(), "res-m-" + run + "-" + keys.size()))));
                List<JsonObject> mine = monitorEpisodes(cluster.node("node-b")).stream()
                        .filter(e -> keys.contains(text(e, "dedupeKey"))).toList();
                List<JsonObject> ranOnB = mine.stream().filter(e -> "node-b".equals(text(e, "runNode"))).toList();
                return ranOnB.size() >= 3 && ranOnB.stream().allMatch(e -> "done".equals(e.getString("status"))) ? ranOnB : null;
            });
            assertThat(onB).hasSizeGreaterThanOrEqualTo(3);
            // more episodes than the executor's threads, and it keeps no more threads than that: a
            // definition without maxAsync made Payara start a thread per task and keep it
            for (int i = 0; i < 80; i++) {
                keys.add(dedupeKey(cluster.node("node-b").post("/events",
                        event("managed-" + run + "-" + keys.size(), "res-m-" + run + "-" + keys.size()))));
            }
            Await.until(WAIT, "every episode posted done", () -> monitorEpisodes(cluster.node("node-a")).stream()
                    .filter(e -> keys.contains(text(e, "dedupeKey"))).filter(e -> "done".equals(e.getString("status")))
                    .count() == keys.size() ? true : null);
            long ranOnB = monitorEpisodes(cluster.node("node-b")).stream().filter(e -> keys.contains(text(e, "dedupeKey")))
                    .filter(e -> "node-b".equals(text(e, "runNode"))).count();
            List<String> executorThreads = cluster.node("node-b").threadNames().stream()
                    .filter(n -> n.startsWith("java:app/cyclium/EpisodeExecutor")).toList();
            assertThat(ranOnB).as("episodes node-b ran").isGreaterThan(32);
            assertThat(executorThreads).as("node-b's threads of its episode executor").isNotEmpty().hasSizeLessThanOrEqualTo(io.cyclium.runtime.ActorHost.EPISODE_EXECUTOR_MAX_ASYNC);
        }

        @Test
        void twenty_distinct_events_split_across_nodes_make_twenty_episodes_each_run_by_one_node() {
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> keys = IntStream.range(0, 20).mapToObj(i -> {
                ClusterNode node = cluster.nodes().get(i % 2);
                // a resource of its own per event: the monitor debounces per resource, and a
                // second event on the same resource within 1 s would replace the first
                return dedupeKey(node.post("/events", event("split-" + run + "-" + i, "res-" + run + "-" + i)));
            }).toList();
            assertThat(keys).doesNotHaveDuplicates();

            List<JsonObject> done = Await.until(WAIT, "20 episodes done", () -> {
                List<JsonObject> mine = monitorEpisodes(cluster.node("node-a")).stream()
                        .filter(e -> keys.contains(text(e, "dedupeKey"))).toList();
                return mine.size() == 20 && mine.stream().allMatch(e -> "done".equals(e.getString("status"))) ? mine : null;
            });
            assertThat(done).allSatisfy(e -> assertThat(text(e, "runNode")).isIn("node-a", "node-b"));

            // every journal row of each episode was written by the node the episode names
            List<Map<String, Object>> writers = cluster.database().query(
                    "SELECT e.dedupe_key, e.run_node, s.node_identity, COUNT(*) AS steps FROM cyclium_episodes e"
                            + " JOIN cyclium_episode_steps s ON s.episode_id = e.id WHERE e.dedupe_key LIKE ?"
                            + " GROUP BY e.dedupe_key, e.run_node, s.node_identity",
                    "event:resource_monitor:%");
            List<Map<String, Object>> ours = writers.stream().filter(r -> keys.contains((String) r.get("dedupe_key"))).toList();
            assertThat(ours).hasSize(20).allSatisfy(r -> assertThat(r.get("node_identity")).isEqualTo(r.get("run_node")));
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

    /** Sends the same POST to every node from a thread each, released together. */
    static List<HttpReply> postAtOnce(List<ClusterNode> nodes, String path, String json) {
        ExecutorService threads = Executors.newFixedThreadPool(nodes.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpReply>> posts = nodes.stream().map(node -> threads.submit(() -> {
                go.await();
                return node.post(path, json);
            })).toList();
            go.countDown();
            List<HttpReply> replies = new ArrayList<>();
            for (Future<HttpReply> post : posts) {
                replies.add(post.get(30, TimeUnit.SECONDS));
            }
            return replies;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("POST " + path + " to every node failed", e);
        } finally {
            threads.shutdownNow();
        }
    }

    private static String event(String id, String resource) {
        return "{\"type\":\"resource.updated\",\"id\":\"" + id + "\",\"payload\":{\"resource\":\"" + resource + "\"}}";
    }

    /** The dedupe key the 202 answer names for resource_monitor. */
    private static String dedupeKey(HttpReply reply) {
        assertThat(reply.status()).as("POST /events: %s", reply).isEqualTo(202);
        return reply.jsonObject().getJsonArray("matched").getValuesAs(JsonObject.class).stream()
                .filter(m -> "resource_monitor".equals(m.getString("actor")))
                .map(m -> m.getString("dedupeKey"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("resource_monitor did not match: " + reply));
    }

    private static List<JsonObject> monitorEpisodes(ClusterNode node) {
        HttpReply reply = node.get("/episodes?actor=resource_monitor&limit=500");
        assertThat(reply.status()).as("GET /episodes: %s", reply).isEqualTo(200);
        return reply.jsonArray().getValuesAs(JsonObject.class);
    }

    private static List<JsonObject> withKey(ClusterNode node, String key) {
        return monitorEpisodes(node).stream().filter(e -> key.equals(text(e, "dedupeKey"))).toList();
    }

    /** A string field, or null when it is absent (JSON-B leaves nulls out) or null. */
    private static String text(JsonObject o, String field) {
        return o.get(field) instanceof JsonString s ? s.getString() : null;
    }

    private static void sleepUntil(Instant when) {
        long millis = Duration.between(Instant.now(), when).toMillis();
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
