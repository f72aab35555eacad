package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.actors.ChaosLedger;
import io.cyclium.keys.DedupeKeys;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chaos suite: Payara Micro nodes on a database server of the suite's own (another loopback
 * port; the machine's shared servers are never touched), a client sending {@code chaos.work}
 * events to random nodes and retrying elsewhere ({@link EventLoad}), an actor restarting each
 * episode up to five times whose single output goes to {@link ChaosLedger}: an adapter that
 * honours the idempotency key, over a ledger <em>without</em> a unique constraint — and faults while the events flow: nodes killed with
 * {@code kill -9} and stopped with SIGTERM and restarted, the database stopped for 30 s, every node
 * restarted in turn (a rolling deploy), MariaDB killed with {@code kill -9}.
 *
 * <p>After each: every accepted event (2xx) has exactly one episode, every episode is done with
 * exactly one ledger row, and all are done within {@link #SETTLE} of the last fault. Beside the
 * kill/stop cycling and the database outage a second load goes to an actor on every default
 * ({@code DefaultsActor}: recovery FAIL, 3 slots, a queue), faster than its slots drain it: none of
 * its episodes may be lost, doubled or left non-terminal, and none may fail without having run a step. In both,
 * durable sleepers and waiters ({@link ChaosSleepers}) sleep, half of the waits get their signal
 * during the fault and half time out: each sleep and each wait resolves exactly once. The short
 * version (a few hundred events) runs in CI; {@code -Dcyclium.soak=long} sends ≥ 5,000.
 */
class ChaosIT {

    static final boolean LONG = "long".equals(System.getProperty("cyclium.soak"));
    /** Lease 6 s + stale after 8 s + sweep every 1 s + drain 3 s, and room for the backlog the faults left. */
    static final Duration SETTLE = Duration.ofSeconds(LONG ? 600 : 180);
    /** Past the deadline, a wait goes on while some episode finished within this window. */
    static final Duration PROGRESS_WINDOW = Duration.ofSeconds(60);
    static final String PAYLOAD = "{\"steps\":4,\"stepMs\":400,\"output\":\"" + ChaosLedger.TYPE + "\"}";
    /** Work of two tenants under a limit per tenant and one for the whole actor ({@code KeyedChaosActor}). */
    static final String KEYED_PAYLOAD = "{\"tenant\":\"$TENANT\",\"steps\":2,\"stepMs\":300,\"output\":\""
            + ChaosLedger.TYPE + "\"}";
    /** A chaos_flow instance per event: its subject is the event's id. */
    static final String FLOW_PAYLOAD = "{\"subject\":\"$ID\",\"steps\":2,\"stepMs\":300,\"output\":\"" + ChaosLedger.TYPE + "\"}";

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Chaos {

        PrivateDatabaseServer server;
        ClusterHarness cluster;

        abstract HarnessDatabase.Vendor vendor();

        abstract int nodes();

        @BeforeAll
        void start() throws Exception {
            server = PrivateDatabaseServer.start(vendor(), ClusterHarness.Builder.clusterRoot().resolve("chaos-db"));
            try {
                ClusterHarness.Builder b = ClusterHarness.on(vendor(), server.port())
                        .war(ClusterHarness.productWarWith("cyclium-chaos-it.war", io.cyclium.cluster.actors.ClusterActor.class,
                                io.cyclium.cluster.chaos.KeyedChaosActor.class));
                for (int i = 1; i <= nodes(); i++) {
                    b.node("node-" + i);
                }
                cluster = b.start();
                try (Connection c = cluster.database().connect()) {
                    ChaosLedger.createTables(c);
                    io.cyclium.cluster.actors.DeliveryLog.createTable(c);
                }
            } catch (RuntimeException | Error e) {
                server.close();
                throw e;
            }
        }

        @BeforeEach
        void everyNodeRuns() {
            for (ClusterNode node : cluster.nodes()) {
                if (!node.isAlive()) {
                    cluster.restart(node.name());
                }
            }
        }

        @AfterAll
        void stop() {
            try {
                if (cluster != null) {
                    cluster.close();
                }
            } finally {
                server.close();
            }
        }

        EventLoad load(String variant, int atLeast) {
            double rate = LONG ? 5 : 4;
            return EventLoad.start(cluster.nodes(), variant + "-" + UUID.randomUUID().toString().substring(0, 6), PAYLOAD, rate,
                    atLeast);
        }

        static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Each episode's row, journal and lease as the database has them now: what a stranded one looks like. */
        String describe(List<String> ids) {
            StringBuilder out = new StringBuilder();
            for (String id : ids) {
                out.append("\n  ").append(cluster.database().query("SELECT id, status, phase, attempts, run_node, queued_at,"
                        + " started_at, updated_at FROM cyclium_episodes WHERE id = '" + id + "'"));
                out.append("\n    journal ").append(cluster.database().query("SELECT step_no, kind, node_identity, created_at"
                        + " FROM cyclium_episode_steps WHERE episode_id = '" + id + "' ORDER BY step_no"));
                out.append("\n    lease ").append(cluster.database().query("SELECT state, owner_node, fence, lease_until, error_detail"
                        + " FROM cyclium_work_claims WHERE dedupe_key = (SELECT dedupe_key FROM cyclium_episodes WHERE id = '" + id + "')"));
            }
            out.append("\n  nodes ").append(cluster.database().query("SELECT node_identity, started_at, last_seen, stopped_at"
                    + " FROM cyclium_nodes"));
            out.append(openTransactions()).append(threadDumps());
            return out.toString();
        }

        /**
         * The database's transactions open for more than 5 s and whom they wait for: a node whose
         * writes stopped behind a lock shows here with the holder's last statement.
         */
        String openTransactions() {
            try {
                return "\n  transactions open > 5 s " + (vendor() == HarnessDatabase.Vendor.POSTGRESQL
                        ? cluster.database().query("SELECT pid, state, wait_event_type, wait_event, CAST(now() - xact_start AS TEXT)"
                                + " AS open_for, CAST(pg_blocking_pids(pid) AS TEXT) AS blocked_by, left(query, 300) AS last_statement"
                                + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                                + " AND xact_start < now() - INTERVAL '5 seconds'")
                        : cluster.database().query("SELECT trx_mysql_thread_id, trx_state, trx_started, trx_wait_started,"
                                + " left(trx_query, 300) AS last_statement FROM information_schema.innodb_trx"
                                + " WHERE trx_started < NOW() - INTERVAL 5 SECOND"));
            } catch (RuntimeException e) {
                return "\n  transactions: not read (" + e.getMessage() + ")";
            }
        }

        /** A thread dump of every live node, beside its log (jcmd of the JDK running the test). */
        String threadDumps() {
            StringBuilder out = new StringBuilder();
            for (ClusterNode node : cluster.nodes()) {
                if (!node.isAlive()) {
                    continue;
                }
                try {
                    // each actor's slots in use and queue on that node: a slot never given back shows as active with nothing running
                    String actors = node.get("/actors").body();
                    out.append("\n  actors on ").append(node.name()).append(": ")
                            .append(actors.length() > 6_000 ? actors.substring(0, 6_000) + "…" : actors);
                } catch (RuntimeException e) {
                    out.append("\n  actors on ").append(node.name()).append(": not read (").append(e.getMessage()).append(')');
                }
                java.nio.file.Path dump = node.log().resolveSibling(node.name() + "-threads.txt");
                try {
                    Process jcmd = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                            String.valueOf(node.pid()), "Thread.print").redirectErrorStream(true).redirectOutput(dump.toFile()).start();
                    out.append("\n  threads of ").append(node.name()).append(jcmd.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)
                            ? ": " + dump : ": jcmd did not answer within 30 s");
                } catch (java.io.IOException e) {
                    out.append("\n  threads of ").append(node.name()).append(": ").append(e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return out.toString();
        }

        /**
         * The episodes of the accepted events by dedupe key ({@code keyToEvent}: key to event id), and
         * when all were terminal (null: not by the deadline).
         */
        record Settled(Map<String, String> keyToEvent, Map<String, List<Map<String, Object>>> byKey, Instant allTerminal) {

            /** Accepted events without an episode. */
            List<String> lost() {
                return keyToEvent.keySet().stream().filter(k -> !byKey.containsKey(k)).map(keyToEvent::get).sorted().toList();
            }

            /** Accepted events with more than one episode. */
            List<String> duplicated() {
                return byKey.entrySet().stream().filter(e -> e.getValue().size() > 1).map(e -> keyToEvent.get(e.getKey())).toList();
            }

            List<Map<String, Object>> episodes() {
                return byKey.values().stream().flatMap(List::stream).toList();
            }
        }

        /**
         * Polls the episodes of the accepted events of {@code load} (sent as {@code eventType} to
         * {@code actor}'s {@code expectation}) until all are terminal or the deadline.
         */
        Settled awaitTerminal(String actor, String expectation, String eventType, EventLoad load, Instant deadline) {
            Map<String, String> keyToEvent = new HashMap<>();
            load.accepted().keySet().forEach(id -> keyToEvent.put(DedupeKeys.event(actor, expectation, id, eventType, null), id));
            long terminalBefore = -1;
            Instant lastProgress = Instant.now();
            while (true) {
                Map<String, List<Map<String, Object>>> byKey = cluster.database()
                        .query("SELECT id, dedupe_key, status, attempts, error_class FROM cyclium_episodes WHERE expectation_id = '"
                                + expectation + "'").stream()
                        .filter(r -> keyToEvent.containsKey((String) r.get("dedupe_key")))
                        .collect(Collectors.groupingBy(r -> (String) r.get("dedupe_key")));
                boolean terminal = byKey.size() == keyToEvent.size() && byKey.values().stream().flatMap(List::stream)
                        .allMatch(r -> Set.of("done", "failed", "canceled").contains(r.get("status")));
                if (terminal) {
                    return new Settled(keyToEvent, byKey, Instant.now());
                }
                long terminalNow = byKey.values().stream().flatMap(List::stream)
                        .filter(r -> Set.of("done", "failed", "canceled").contains(r.get("status"))).count();
                if (terminalNow > terminalBefore) {
                    terminalBefore = terminalNow;
                    lastProgress = Instant.now();
                }
                // A node works through its own queue at its actors' slots (queues are per node): a
                // backlog that one node accepted while the others were being killed can outlast the
                // deadline with every episode of it moving. Past the deadline, waiting goes on while
                // episodes still finish (at most SETTLE more); stranded is what stopped moving.
                boolean stillMoving = Duration.between(lastProgress, Instant.now()).compareTo(PROGRESS_WINDOW) < 0;
                if (Instant.now().isAfter(deadline) && (!stillMoving || Instant.now().isAfter(deadline.plus(SETTLE)))) {
                    return new Settled(keyToEvent, byKey, null);
                }
                sleep(1000);
            }
        }

        /**
         * Waits until every accepted event's episode is terminal (at most {@link #SETTLE} after the
         * last fault), then checks the promises and prints the figures.
         */
        void assertNothingLostOrDoubled(String variant, EventLoad load, Instant lastFault) {
            assertNothingLostOrDoubled(variant, "cluster_actor", "chaos", "chaos.work", load, lastFault);
        }

        /** Keyed loads, one per tenant, each sending at {@code perSecond}. */
        List<EventLoad> keyedLoads(String variant, double perSecond, int atLeast) {
            String run = variant + "-" + UUID.randomUUID().toString().substring(0, 6);
            return List.of("acme", "globex").stream().map(tenant -> EventLoad.start(cluster.nodes(), run + "-" + tenant,
                    "chaos.keyed", KEYED_PAYLOAD.replace("$TENANT", tenant), perSecond, atLeast)).toList();
        }

        /**
         * The keyed work ({@link #keyedLoads}): nothing lost, doubled or left undone, and once all of it
         * is terminal no concurrency slot is left — a slot goes with its episode's terminal write, and
         * one whose node died is taken again by the node that recovers the episode.
         */
        void assertKeyedWorkRanOnceAndGaveBackEverySlot(String variant, List<EventLoad> keyed, Instant lastFault) {
            for (EventLoad load : keyed) {
                assertNothingLostOrDoubled(variant + " keyed", "keyed_chaos_actor", "chaos_keyed", "chaos.keyed", load, lastFault);
            }
            List<Map<String, Object>> left = cluster.database().query("SELECT scope, concurrency_key, slot_no, episode_id, holder"
                    + " FROM cyclium_concurrency_slots WHERE scope LIKE 'keyed_chaos_actor%'"
                    + " AND episode_id IS NOT NULL");
            System.out.printf(Locale.ROOT, "[figures] chaos %s %s keyed: %d concurrency slots left after all terminal%n", vendor(),
                    variant, left.size());
            assertThat(left).as("slots left by terminal episodes").isEmpty();
        }

        void assertNothingLostOrDoubled(String variant, String actor, String expectation, String eventType, EventLoad load,
                Instant lastFault) {
            Settled settled = awaitTerminal(actor, expectation, eventType, load, lastFault.plus(SETTLE));
            Instant allTerminal = settled.allTerminal();
            List<String> lost = settled.lost();
            List<String> duplicated = settled.duplicated();
            List<Map<String, Object>> episodes = settled.episodes();
            List<Map<String, Object>> notDone = episodes.stream().filter(r -> !"done".equals(r.get("status"))).toList();
            Map<String, Long> ledger = cluster.database().query("SELECT episode_id, COUNT(*) AS n FROM it_ledger GROUP BY episode_id")
                    .stream().collect(Collectors.toMap(r -> (String) r.get("episode_id"), r -> ((Number) r.get("n")).longValue()));
            List<String> missingOutput = episodes.stream().filter(r -> "done".equals(r.get("status")))
                    .map(r -> (String) r.get("id")).filter(id -> !ledger.containsKey(id)).toList();
            List<String> doubledOutput = episodes.stream().map(r -> (String) r.get("id"))
                    .filter(id -> ledger.getOrDefault(id, 0L) > 1).toList();
            long calls = ((Number) cluster.database().query("SELECT COUNT(*) AS n FROM it_ledger_calls").get(0).get("n")).longValue();
            long rows = ((Number) cluster.database().query("SELECT COUNT(*) AS n FROM it_ledger").get(0).get("n")).longValue();
            int restarts = episodes.stream().mapToInt(r -> ((Number) r.get("attempts")).intValue() - 1).sum();
            String figures = String.format(Locale.ROOT, "[figures] chaos %s %s: %d events sent, %d accepted, %d given up,"
                            + " %d refusals + %d connection errors retried, longest wait for a 2xx %.1f s; %d episodes,"
                            + " %d extra attempts, %d not done, %d lost, %d duplicated, %d outputs missing, %d doubled"
                            + " (suite so far: %d adapter calls for %d ledger rows);"
                            + " all terminal %s after the last fault",
                    vendor(), variant, load.sent(), load.accepted().size(), load.givenUp().size(), load.refusals(),
                    load.connectionErrors(), load.longestDelay().toMillis() / 1000.0, episodes.size(), restarts, notDone.size(),
                    lost.size(), duplicated.size(), missingOutput.size(), doubledOutput.size(), calls, rows,
                    allTerminal == null ? "NOT within " + SETTLE.toSeconds() + " s and a minute without one finishing"
                            : String.format(Locale.ROOT, "%.1f s", Duration.between(lastFault, allTerminal).toMillis() / 1000.0));
            System.out.println(figures);
            assertThat(load.accepted()).as("accepted events").isNotEmpty();
            assertThat(lost).as("accepted events without an episode. " + figures).isEmpty();
            assertThat(duplicated).as("events with more than one episode").isEmpty();
            assertThat(notDone).as("episodes not done (stranded or failed) %s after the last fault", SETTLE).isEmpty();
            assertThat(missingOutput).as("done episodes whose output never reached the ledger").isEmpty();
            assertThat(doubledOutput).as("episodes whose output reached the ledger twice").isEmpty();
            assertThat(allTerminal).as("all terminal within %s of the last fault", SETTLE).isNotNull();
        }

        /**
         * Every accepted {@code chaos.flow} event has exactly one instance of {@code chaos_flow} (its
         * subject is the event id), completed within {@link #SETTLE} of the last fault; each step of it
         * completed by exactly one done episode, and no step had more episodes than its attempts allow.
         */
        void assertEveryWorkflowCompletedOnce(String variant, EventLoad flows, Instant lastFault) {
            Set<String> subjects = flows.accepted().keySet();
            Instant deadline = lastFault.plus(SETTLE);
            Map<String, List<Map<String, Object>>> read;
            while (true) {
                read = cluster.database().query("SELECT id, subject_value, status FROM cyclium_workflow_instances"
                        + " WHERE workflow_id = 'chaos_flow'").stream().filter(r -> subjects.contains((String) r.get("subject_value")))
                        .collect(Collectors.groupingBy(r -> (String) r.get("subject_value")));
                boolean settled = read.size() == subjects.size() && read.values().stream().flatMap(List::stream)
                        .allMatch(r -> Set.of("completed", "failed", "canceled").contains(r.get("status")));
                if (settled || Instant.now().isAfter(deadline)) {
                    break;
                }
                sleep(1000);
            }
            Map<String, List<Map<String, Object>>> bySubject = read;
            Set<String> instances = bySubject.values().stream().flatMap(List::stream).map(r -> (String) r.get("id"))
                    .collect(Collectors.toSet());
            List<String> lost = subjects.stream().filter(sub -> !bySubject.containsKey(sub)).sorted().toList();
            List<String> twice = bySubject.entrySet().stream().filter(e -> e.getValue().size() > 1).map(Map.Entry::getKey).toList();
            List<Map<String, Object>> notCompleted = bySubject.values().stream().flatMap(List::stream)
                    .filter(r -> !"completed".equals(r.get("status"))).toList();
            // per instance and step: its episodes, and how many of them are done
            Map<String, List<Map<String, Object>>> stepEpisodes = cluster.database().query("SELECT workflow_instance_id, workflow_step_id,"
                    + " status FROM cyclium_episodes WHERE workflow_instance_id IS NOT NULL").stream()
                    .filter(r -> instances.contains((String) r.get("workflow_instance_id")))
                    .collect(Collectors.groupingBy(r -> r.get("workflow_instance_id") + "/" + r.get("workflow_step_id")));
            List<String> doneTwice = stepEpisodes.entrySet().stream()
                    .filter(e -> e.getValue().stream().filter(r -> "done".equals(r.get("status"))).count() > 1).map(Map.Entry::getKey).toList();
            List<String> tooMany = stepEpisodes.entrySet().stream().filter(e -> e.getValue().size() > 3).map(Map.Entry::getKey).toList();
            long flakyRetries = stepEpisodes.entrySet().stream().filter(e -> e.getKey().endsWith("/flaky"))
                    .mapToLong(e -> e.getValue().size() - 1).sum();
            String figures = String.format(Locale.ROOT, "[figures] chaos %s %s (workflow chaos_flow): %d events sent, %d accepted,"
                            + " %d given up; %d instances, %d not completed, %d lost, %d started twice; %d step episodes,"
                            + " %d steps done twice, %d steps over their attempts, %d retries of the flaky step",
                    vendor(), variant, flows.sent(), subjects.size(), flows.givenUp().size(), instances.size(), notCompleted.size(),
                    lost.size(), twice.size(), stepEpisodes.values().stream().mapToInt(List::size).sum(), doneTwice.size(),
                    tooMany.size(), flakyRetries);
            System.out.println(figures);
            assertThat(subjects).as("accepted workflow events").isNotEmpty();
            assertThat(lost).as("accepted events without an instance. " + figures).isEmpty();
            assertThat(twice).as("events with two instances").isEmpty();
            assertThat(notCompleted).as("instances not completed %s after the last fault. %s", SETTLE, figures).isEmpty();
            assertThat(doneTwice).as("steps completed by two episodes").isEmpty();
            assertThat(tooMany).as("steps with more episodes than attempts").isEmpty();
        }

        /**
         * Durable sleepers and waiters beside a fault ({@link ChaosSleepers}): a dozen of each in the
         * short run, sent within 24 s (8-s sleeps), hundreds in the long one. A wait's timeout must
         * outlast the fault that keeps its signal from landing: the test's settle waits for the
         * last odd waiter to time out, so it is as short as the fault allows.
         */
        ChaosSleepers sleepers(String variant, Duration waitTimeout) {
            return ChaosSleepers.start(cluster, variant, LONG ? 1 : 0.5, LONG ? 300 : 12, 8_000, waitTimeout.toMillis());
        }

        EventLoad defaultsLoad(String variant, double rate, int atLeast) {
            return EventLoad.start(cluster.nodes(), variant + "-" + UUID.randomUUID().toString().substring(0, 6), "chaos.default",
                    PAYLOAD, rate, atLeast);
        }

        /**
         * For the actor on the defaults (recovery FAIL): every accepted event has exactly one
         * episode, every episode is terminal within {@link #SETTLE} of the last fault, and an episode
         * failed by recovery ran a step of its strategy first: work that never ran (queued on a node
         * that died, or caught by the outage before its first step) is restarted, not failed.
         */
        void assertNothingLostStrandedOrFailedUnrun(String variant, EventLoad load, Instant lastFault) {
            Settled settled = awaitTerminal("defaults_actor", "chaos_default", "chaos.default", load, lastFault.plus(SETTLE));
            Instant allTerminal = settled.allTerminal();
            List<String> lost = settled.lost();
            List<String> duplicated = settled.duplicated();
            List<Map<String, Object>> episodes = settled.episodes();
            List<Map<String, Object>> stranded = episodes.stream()
                    .filter(r -> !Set.of("done", "failed", "canceled").contains(r.get("status"))).toList();
            List<Map<String, Object>> failed = episodes.stream().filter(r -> "failed".equals(r.get("status"))).toList();
            Set<String> ranSteps = cluster.database().query("SELECT DISTINCT s.episode_id FROM cyclium_episode_steps s"
                    + " JOIN cyclium_episodes e ON e.id = s.episode_id WHERE e.expectation_id = 'chaos_default'"
                    + " AND s.kind NOT IN ('interrupted', 'resumed', 'restarted', 'episode_failed')").stream()
                    .map(r -> (String) r.get("episode_id")).collect(Collectors.toSet());
            List<Map<String, Object>> failedUnrun = failed.stream().filter(r -> !ranSteps.contains((String) r.get("id"))).toList();
            long done = episodes.stream().filter(r -> "done".equals(r.get("status"))).count();
            int restarts = episodes.stream().mapToInt(r -> ((Number) r.get("attempts")).intValue() - 1).sum();
            String figures = String.format(Locale.ROOT, "[figures] chaos %s %s (actor on the defaults): %d events sent, %d accepted,"
                            + " %d given up; %d episodes, %d done, %d failed after running a step, %d failed without one,"
                            + " %d stranded, %d lost, %d duplicated, %d extra attempts; all terminal %s after the last fault",
                    vendor(), variant, load.sent(), load.accepted().size(), load.givenUp().size(), episodes.size(), done,
                    failed.size() - failedUnrun.size(), failedUnrun.size(), stranded.size(), lost.size(), duplicated.size(),
                    restarts, allTerminal == null ? "NOT within " + SETTLE.toSeconds() + " s and a minute without one finishing"
                            : String.format(Locale.ROOT, "%.1f s", Duration.between(lastFault, allTerminal).toMillis() / 1000.0));
            System.out.println(figures);
            assertThat(load.accepted()).as("accepted events").isNotEmpty();
            assertThat(lost).as("accepted events without an episode. " + figures).isEmpty();
            assertThat(duplicated).as("events with more than one episode").isEmpty();
            assertThat(stranded).as("episodes not terminal %s after the last fault (nor while others still finished). %s%s", SETTLE, figures,
                    describe(stranded.stream().map(r -> (String) r.get("id")).limit(20).toList())).isEmpty();
            assertThat(failedUnrun).as("episodes failed without running a step. " + figures).isEmpty();
        }

        @Test
        void nodes_killed_with_kill_9_and_stopped_with_sigterm_and_restarted_lose_and_double_nothing_and_fail_nothing_that_never_ran() {
            int cycles = LONG ? 10 : 2;
            // every fifth POST a list of five events
            EventLoad load = load("kill", LONG ? 2_500 : 120).withLists();
            // beside it, faster than the default slots drain it, work for an actor on the defaults
            // waits in every node's queue when they die
            EventLoad defaults = defaultsLoad("defaults-kill", LONG ? 6 : 5, LONG ? 1_500 : 100);
            // and workflows: a chain with a flaky step that is retried, its other steps on the defaults
            EventLoad flows = EventLoad.start(cluster.nodes(), "flow-" + UUID.randomUUID().toString().substring(0, 6),
                    "chaos.flow", FLOW_PAYLOAD, 1, LONG ? 300 : 30);
            // and durable sleeps and waits, half of the waits signalled while the nodes die
            // a node is down at most ~20 s at a time, and the signals go to the live ones
            ChaosSleepers sleepers = sleepers("kill", Duration.ofSeconds(LONG ? 45 : 25));
            // and work under cluster-wide limits: two tenants' keys of 2 and the actor's 4
            List<EventLoad> keyed = keyedLoads("kill", LONG ? 2 : 1, LONG ? 600 : 20);
            try {
                sleep(5_000);
                Instant lastFault = Instant.now();
                for (int k = 0; k < cycles; k++) {
                    String node = cluster.nodes().get(k % nodes()).name();
                    lastFault = k % 2 == 0 ? cluster.kill9(node) : cluster.sigterm(node);
                    cluster.waitForExit(node, Duration.ofSeconds(60));
                    sleep(2_000);
                    cluster.restart(node);
                }
                load.finish();
                defaults.finish();
                flows.finish();
                sleepers.finish();
                keyed.forEach(EventLoad::finish);
                assertNothingLostOrDoubled("kill -9 / SIGTERM cycling (" + cycles + " faults)", load, lastFault);
                assertKeyedWorkRanOnceAndGaveBackEverySlot("kill -9 / SIGTERM cycling (" + cycles + " faults)", keyed, lastFault);
                assertNothingLostStrandedOrFailedUnrun("kill -9 / SIGTERM cycling (" + cycles + " faults)", defaults, lastFault);
                assertEveryWorkflowCompletedOnce("kill -9 / SIGTERM cycling (" + cycles + " faults)", flows, lastFault);
                sleepers.assertEachResolvedOnce(this, vendor() + " kill -9 / SIGTERM cycling (" + cycles + " faults)", lastFault, SETTLE);
            } finally {
                load.close();
                defaults.close();
                flows.close();
                sleepers.close();
                keyed.forEach(EventLoad::close);
            }
        }
    }

    @Nested
    class OnPostgresql extends Chaos {

        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.POSTGRESQL;
        }

        @Override
        int nodes() {
            return 3;
        }

        @Test
        void the_database_stopped_for_30_seconds_loses_doubles_and_strands_nothing() {
            // long: the run, 5,000 events with the outage in the middle of the load
            EventLoad load = load("dbstop", LONG ? 5_000 : 120);
            // and queued work of an actor on the defaults: 0 stranded, nothing that never ran failed
            EventLoad defaults = defaultsLoad("defaults-dbstop", LONG ? 6 : 5, LONG ? 1_000 : 100);
            // and durable sleeps and waits: due, signalled and timing out while the database is away
            // the outage lasts 30 s: a signal sent during it lands after it, within the timeout
            ChaosSleepers sleepers = sleepers("dbstop", Duration.ofSeconds(45));
            try {
                sleep(LONG ? 480_000 : 8_000);
                server.stop();
                sleep(30_000);
                server.launch();
                Instant lastFault = Instant.now();
                sleep(5_000);
                // the defaults load outruns its slots on purpose: stopped once the fault is over, its
                // backlog drains while the main load goes on (the long run's outage is mid-load)
                defaults.finish();
                load.finish();
                sleepers.finish();
                assertNothingLostOrDoubled("database stopped 30 s", load, lastFault);
                assertNothingLostStrandedOrFailedUnrun("database stopped 30 s", defaults, lastFault);
                sleepers.assertEachResolvedOnce(this, vendor() + " database stopped 30 s", lastFault, SETTLE);
            } finally {
                load.close();
                defaults.close();
                sleepers.close();
            }
        }

        @Test
        void a_node_frozen_longer_than_its_lease_stops_no_other_node_and_its_work_is_taken_over() {
            // enough senders that the ones waiting on the frozen node (30 s request timeout) leave others free
            EventLoad load = EventLoad.start(cluster.nodes(), "frozen-" + UUID.randomUUID().toString().substring(0, 6),
                    "chaos.work", PAYLOAD, LONG ? 5 : 4, LONG ? 1_000 : 120, 64);
            String frozen = cluster.nodes().get(0).name();
            Instant froze;
            Instant thawed;
            try {
                // one long episode surely running there when it freezes (30 steps of 400 ms)
                String longId = "frozen-long-" + UUID.randomUUID();
                HttpReply posted = cluster.node(frozen).post("/events", "{\"type\":\"chaos.work\",\"id\":\"" + longId
                        + "\",\"payload\":{\"steps\":30,\"stepMs\":400,\"output\":\"" + ChaosLedger.TYPE + "\"}}");
                assertThat(posted.status()).as(posted.body()).isEqualTo(202);
                String longKey = DedupeKeys.event("cluster_actor", "chaos", longId, "chaos.work", null);
                sleep(6_000);
                long runningThere = ((Number) cluster.database().query("SELECT COUNT(*) AS n FROM cyclium_episodes"
                        + " WHERE run_node = ? AND status = 'running' AND expectation_id = 'chaos'", frozen).get(0).get("n"))
                        .longValue();
                assertThat(runningThere).as("episodes running on %s as it freezes", frozen).isPositive();
                // SIGSTOP under load: most likely inside a batch's transaction, holding its row locks
                froze = cluster.pause(frozen);
                try {
                    sleep(20_000); // lease 6 s: three leases and more
                } finally {
                    thawed = cluster.resume(frozen);
                }
                sleep(5_000);
                load.finish();
                Instant from = froze;
                Instant to = thawed;
                long acceptedElsewhereWhileFrozen = load.accepted().values().stream()
                        .filter(a -> !a.node().equals(frozen) && a.acceptedAt().isAfter(from.plusSeconds(8))
                                && a.acceptedAt().isBefore(to))
                        .count();
                System.out.printf(Locale.ROOT, "[figures] chaos %s node frozen 20 s: %d events accepted by the other nodes"
                        + " between 8 s into the freeze and its end%n", vendor(), acceptedElsewhereWhileFrozen);
                assertThat(acceptedElsewhereWhileFrozen).as("events the other nodes took while %s was frozen", frozen)
                        .isGreaterThan(10);
                assertNothingLostOrDoubled("node frozen 20 s", load, thawed);
                // its episodes that had begun were taken over: journal rows of the frozen node, resumed by another
                long takenOver = ((Number) cluster.database().query("SELECT COUNT(DISTINCT e.id) AS n FROM cyclium_episodes e"
                        + " JOIN cyclium_episode_steps s ON s.episode_id = e.id AND s.node_identity = ?"
                        + " JOIN cyclium_episode_steps r ON r.episode_id = e.id AND r.kind = 'resumed' AND r.node_identity <> ?"
                        + " WHERE e.expectation_id = 'chaos' AND e.status = 'done'", frozen, frozen).get(0).get("n")).longValue();
                System.out.printf(Locale.ROOT, "[figures] chaos %s node frozen 20 s: %d running there when it froze, %d of its"
                        + " begun episodes resumed and finished by other nodes%n", vendor(), runningThere, takenOver);
                assertThat(takenOver).as("episodes %s had begun that other nodes took over and finished", frozen).isPositive();
                Instant deadline = Instant.now().plus(SETTLE);
                List<Map<String, Object>> longOne;
                do {
                    sleep(1000);
                    longOne = cluster.database().query("SELECT e.status, (SELECT COUNT(*) FROM cyclium_episode_steps r"
                            + " WHERE r.episode_id = e.id AND r.kind = 'resumed' AND r.node_identity <> ?) AS resumed_elsewhere"
                            + " FROM cyclium_episodes e WHERE e.dedupe_key = ?", frozen, longKey);
                } while (!"done".equals(longOne.get(0).get("status")) && Instant.now().isBefore(deadline));
                assertThat(longOne).singleElement().satisfies(r -> {
                    assertThat(r.get("status")).isEqualTo("done");
                    assertThat(((Number) r.get("resumed_elsewhere")).intValue()).as("resumed by another node").isPositive();
                });
            } finally {
                load.close();
            }
        }

        @Test
        void a_rolling_restart_of_every_node_under_load_refuses_no_event_longer_than_one_nodes_restart() {
            EventLoad load = load("rolling", LONG ? 1_500 : 120);
            Duration longestRestart = Duration.ZERO;
            try {
                sleep(5_000);
                Instant lastFault = Instant.now();
                for (ClusterNode node : cluster.nodes()) {
                    Instant begin = Instant.now();
                    lastFault = begin;
                    cluster.restart(node.name());
                    Duration took = Duration.between(begin, Instant.now());
                    longestRestart = took.compareTo(longestRestart) > 0 ? took : longestRestart;
                }
                load.finish();
                assertNothingLostOrDoubled("rolling restart", load, lastFault);
                System.out.printf(Locale.ROOT, "[figures] chaos rolling restart: longest node restart %.1f s, longest wait for a 2xx %.1f s%n",
                        longestRestart.toMillis() / 1000.0, load.longestDelay().toMillis() / 1000.0);
                assertThat(load.givenUp()).isEmpty();
                assertThat(load.longestDelay()).as("longest wait for a 2xx while retrying on other nodes")
                        .isLessThan(longestRestart);
            } finally {
                load.close();
            }
        }
    }

    @Nested
    @ExtendWith(MariadbRotation.class)
    class OnMariadb extends Chaos {

        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.MARIADB;
        }

        @Override
        int nodes() {
            return 2;
        }

        @Test
        void mariadb_killed_with_kill_9_and_restarted_loses_and_doubles_nothing() {
            EventLoad load = load("dbkill", LONG ? 1_000 : 100);
            try {
                sleep(5_000);
                server.kill9();
                sleep(5_000);
                server.launch();
                Instant lastFault = Instant.now();
                sleep(5_000);
                load.finish();
                assertNothingLostOrDoubled("MariaDB kill -9 and restart", load, lastFault);
            } finally {
                load.close();
            }
        }
    }
}
