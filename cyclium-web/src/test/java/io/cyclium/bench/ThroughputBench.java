package io.cyclium.bench;

import io.cyclium.bench.actors.BenchActor;
import io.cyclium.bench.limited.LimitedBenchActor;
import io.cyclium.cluster.ClusterHarness;
import io.cyclium.cluster.ClusterNode;
import io.cyclium.cluster.HarnessDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Trivial episodes per second on Payara Micro nodes and a PostgreSQL of the benchmark's own.
 *
 * <p>Each round boots a fresh database and nodes and runs, in order: one node, {@code bench.events}
 * events fired through the CDI event from 20 threads after a warm-up; the same node, events through
 * {@code POST /cyclium/api/events} from 8 HTTP clients after a warm-up of its own, one event per POST
 * and then {@code bench.http-batch} (100) per POST; two nodes, half of the events fired on each. The
 * nodes' JVM CPU is split into JIT compiler threads, GC threads and the rest: on two cores the JIT is
 * still busy minutes into a run.
 * Per scenario it prints episodes/s (until the last episode is {@code done}), CPU µs per episode of
 * the JVMs and of PostgreSQL (from {@code /proc}), statements and transactions per episode (from
 * {@code pg_stat_statements}, the nodes' user only), heartbeat statements per tick, and checks that
 * no dedupe key has two episodes and every episode has exactly one completion row. Rounds are
 * interleaved; the summary gives median and spread (min–max) of each figure. {@code
 * -Dbench.compare-limits=true} runs this build twice per round, interleaved: without flow control,
 * and with a concurrency key and a cluster-wide actor limit declared that never bind (what issue
 * #35 asks a limit to cost when it does not bind: within 10 %).
 *
 * <pre>mvn -q -B -pl cyclium-web -am package -DskipTests
 * mvn -q -B -o -pl cyclium-web test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.cyclium.bench.ThroughputBench -Dbench.rounds=3 -Dbench.events=20000</pre>
 */
public final class ThroughputBench {

    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);

    /** What #34 asks of one node against db-scheduler in the same round (item 4), for {@link Targets}. */
    static final List<Targets.Target> TARGETS = List.of(
            Targets.Target.atLeast("CDI from 4 threads: rate ÷ db-scheduler's",
                    ".*one node, CDI from 4 threads: rate ÷ db-scheduler's \\(same round\\)", 1.0),
            Targets.Target.atMost("CDI from 4 threads: CPU per episode ÷ db-scheduler's",
                    ".*one node, CDI from 4 threads: CPU/unit ÷ db-scheduler's \\(same round\\)", 1.5),
            Targets.Target.atLeast("single-event POSTs: rate ÷ db-scheduler's",
                    ".*one node, POST /events \\(\\d+ clients\\): rate ÷ db-scheduler's \\(same round\\)", 0.5));
    private static final int EVENTS = Integer.getInteger("bench.events", 20_000);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 5_000);
    /** Episodes fired right before each CDI phase from that phase's number of threads (its own paths warm too). */
    private static final int PHASE_WARMUP = Integer.getInteger("bench.phase-warmup", 10_000);
    private static final int HTTP_EVENTS = Integer.getInteger("bench.http-events", 10_000);
    /** The CDI phases fire from each of these numbers of threads (and the reference schedules from as many). */
    private static final List<Integer> FIRE_THREADS = java.util.Arrays.stream(System.getProperty("bench.fire-threads", "4,20")
            .split(",")).map(String::trim).map(Integer::valueOf).toList();
    /**
     * POSTs before the HTTP measurement: the request path (Grizzly, security, the intake servlet) gets
     * compiled first too. 3,000 left the C2 compiler with 41 % of a single-event phase's CPU
     * (async-profiler, 2026-12-06); 10,000 is what issue 34's outside harness warmed with.
     */
    private static final int HTTP_WARMUP = Integer.getInteger("bench.http-warmup", 10_000);
    /** Events per POST of the batch scenario (a JSON array, stored in one transaction); 0 leaves it out. */
    private static final int HTTP_BATCH = Integer.getInteger("bench.http-batch", 100);
    private static final long CLOCK_TICKS = 100; // USER_HZ on Linux
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** Production timings (not the harness's short failover ones): the sweep every 30 s, lease 30 s. */
    static final Map<String, String> TIMINGS = Map.of(
            "CYCLIUM_WORK_CLAIMS_LEASE_SECONDS", "30",
            "CYCLIUM_RECOVERY_INITIAL_DELAY_MS", "120000",
            "CYCLIUM_RECOVERY_INTERVAL_MS", "30000",
            "CYCLIUM_RECOVERY_STALE_AFTER_MS", "120000",
            "CYCLIUM_DEMO_ENABLED", "false");

    private ThroughputBench() {
    }

    public static void main(String[] args) throws Exception {
        // label → WAR: this build's, and optionally another build's (-Dbench.compare-war=<its Micro WAR>)
        // to interleave with it, so that a before/after ratio comes from one run on one machine state
        Map<String, Path> wars = new LinkedHashMap<>();
        String compare = System.getProperty("bench.compare-war");
        Path product = Path.of(System.getProperty("cyclium.micro.war", "target/cyclium-web-micro.war"));
        if (Boolean.getBoolean("bench.compare-limits")) {
            // the same build twice: without flow control, and with limits declared that never bind
            wars.put("no limit", warWith(product, "cyclium-bench.war", false));
            wars.put("limits declared", warWith(product, "cyclium-bench-limited.war", true));
        } else {
            if (compare != null) {
                wars.put("before", warWith(Path.of(compare), "cyclium-bench-before.war", false));
            }
            wars.put(compare != null ? "after" : "this build", warWith(product, "cyclium-bench.war", false));
        }
        Map<String, List<Double>> figures = new LinkedHashMap<>();
        System.out.println("[bench] firing threads " + FIRE_THREADS + "; warm-up " + WARMUP + " episodes per node (20 threads), "
                + PHASE_WARMUP + " more before each CDI phase from its threads, and "
                + WARMUP + " executions of db-scheduler, " + HTTP_WARMUP + " POSTs before the HTTP phases");
        try (OwnPostgres pg = OwnPostgres.start(Path.of("target/bench").toAbsolutePath())) {
            System.out.println("[bench] PostgreSQL of its own on 127.0.0.1:" + pg.port() + " (fsync on, pg_stat_statements)");
            DbSchedulerReference dbScheduler = DbSchedulerReference.on(pg);
            warmUp(dbScheduler);
            for (int round = 1; round <= ROUNDS; round++) {
                // odd rounds run the builds in the order given, even rounds the other way round: the
                // second build of a round meets the first one's leftovers on the shared PostgreSQL
                // (autovacuum of its tables, checkpoints), so each build takes both places
                List<Map.Entry<String, Path>> order = new ArrayList<>(wars.entrySet());
                if (round % 2 == 0) {
                    Collections.reverse(order);
                }
                for (Map.Entry<String, Path> war : order) {
                    String label = wars.size() > 1 ? war.getKey() + ": " : "";
                    // the reference runs right before each build's phases: minutes apart, the machine is another one
                    System.out.println("[bench] round " + round + " of " + ROUNDS + ", the reference: db-scheduler 16.12.0");
                    SameRound reference = referencePhases(pg, dbScheduler, round + war.getKey().replace(' ', '-'), figures);
                    System.out.println("[bench] round " + round + " of " + ROUNDS + (label.isEmpty() ? "" : ", " + war.getKey()));
                    nodeEnv = "before".equals(war.getKey())
                            ? System.getProperty("bench.compare-node-env", System.getProperty("bench.node-env", ""))
                            : System.getProperty("bench.node-env", "");
                    runName = war.getKey().replace(' ', '-') + "-r" + round;
                    oneNode(pg, war.getValue(), round, label, figures, reference);
                    if (Boolean.parseBoolean(System.getProperty("bench.two-nodes", "true"))) {
                        twoNodes(pg, war.getValue(), round, label, figures);
                    }
                }
            }
            dbScheduler.close();
        }
        BenchClients.printSummary(ROUNDS + " round(s), " + EVENTS + " events each", figures);
        Targets.print("#34's targets for episodes (item 4) in this run", figures, TARGETS);
    }

    private static void warmUp(DbSchedulerReference dbScheduler) throws Exception {
        try (DbSchedulerReference.Running running = dbScheduler.start()) {
            running.schedule(WARMUP, 20, "warm");
            running.awaitExecuted(WARMUP);
        }
    }

    /** The reference's phases of a round: {@code bench.events} executions scheduled from each number of firing threads. */
    private static SameRound referencePhases(OwnPostgres pg, DbSchedulerReference dbScheduler, String round,
            Map<String, List<Double>> figures) throws Exception {
        SameRound reference = new SameRound();
        for (int threads : FIRE_THREADS) {
            try (DbSchedulerReference.Running running = dbScheduler.start()) {
                // warmed from the phase's threads too, as the nodes are
                running.schedule(PHASE_WARMUP, threads, "rw" + round + "-" + threads);
                running.awaitExecuted(PHASE_WARMUP);
                Measure m = Measure.reference(pg);
                running.schedule(EVENTS, threads, "r" + round + "-" + threads);
                running.awaitExecuted(PHASE_WARMUP + EVENTS);
                reference.put(threads, m.end(EVENTS, "db-scheduler, lock-and-fetch " + DbSchedulerReference.EXECUTOR_THREADS
                        + " threads, scheduled from " + threads + " threads", figures));
            }
        }
        return reference;
    }

    /**
     * The reference's figures of the current round by firing threads, and the ratios of a Cyclium
     * phase to them: the machine swings more between rounds than a build moves the figures, so the
     * ratio within a round is the figure to read.
     */
    static final class SameRound {
        private final Map<Integer, Result> byThreads = new java.util.HashMap<>();

        void put(int threads, Result result) {
            byThreads.put(threads, result);
        }

        void compare(int threads, String scenario, Result cyclium, Map<String, List<Double>> figures) {
            Result ref = byThreads.get(threads);
            double rateRatio = cyclium.rate() / ref.rate();
            double cpuRatio = cyclium.cpuMicros() / ref.cpuMicros();
            System.out.printf(Locale.ROOT, "[bench]   %-36s %.2f × db-scheduler's rate, %.2f × its CPU per unit (same round)%n",
                    scenario, rateRatio, cpuRatio);
            figures.computeIfAbsent(scenario + ": rate ÷ db-scheduler's (same round)", k -> new ArrayList<>()).add(rateRatio);
            figures.computeIfAbsent(scenario + ": CPU/unit ÷ db-scheduler's (same round)", k -> new ArrayList<>()).add(cpuRatio);
        }
    }

    /**
     * A product Micro WAR plus the benchmark's actor, written beside the harness's WARs; {@code limited}:
     * the actor with limits declared that never bind ({@link LimitedBenchActor}) instead.
     */
    private static Path warWith(Path product, String name, boolean limited) {
        java.io.File out = new java.io.File("target/cluster/" + name);
        out.getParentFile().mkdirs();
        org.jboss.shrinkwrap.api.spec.WebArchive war = org.jboss.shrinkwrap.api.ShrinkWrap
                .create(org.jboss.shrinkwrap.api.importer.ZipImporter.class, "cyclium.war")
                .importFrom(product.toFile()).as(org.jboss.shrinkwrap.api.spec.WebArchive.class)
                .addPackage(BenchActor.class.getPackage());
        if (limited) {
            war.deleteClass(BenchActor.class).addClass(LimitedBenchActor.class);
        }
        war.as(org.jboss.shrinkwrap.api.exporter.ZipExporter.class).exportTo(out, true);
        return out.toPath();
    }

    /**
     * The nodes' extra environment for the build being run: {@code bench.node-env}, and for the
     * compared build {@code bench.compare-node-env} when given (the same WAR twice then compares two
     * settings in one interleaved run).
     */
    private static volatile String nodeEnv = "";

    /** The build and round being run, for file names in {@code bench.node-jvm-options}. */
    private static volatile String runName = "run";

    /** {@code pairs} ({@code NAME=value,NAME=value}, as {@code bench.node-env} takes them) as the nodes' environment. */
    static void nodeEnv(ClusterHarness.Builder b, String pairs) {
        for (String pair : pairs.trim().split(",")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                b.env(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
    }

    private static ClusterHarness cluster(OwnPostgres pg, Path war, String... nodes) {
        ClusterHarness.Builder b = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL, pg.port()).war(war).fullJit();
        TIMINGS.forEach(b::env);
        // e.g. -Dbench.node-env=CYCLIUM_EPISODE_GROUP_COMMIT_WRITERS=1,CYCLIUM_EPISODE_EXECUTOR_THREADS=8
        nodeEnv(b, nodeEnv);
        // e.g. -Dbench.node-jvm-options="-XX:StartFlightRecording=filename=/tmp/{run}.jfr,settings=profile":
        // {run} is the build's label, the round and the node set, so interleaved builds keep a recording each.
        // The harness ends its nodes with SIGKILL, which writes no recording: take it with
        // `jcmd <pid> JFR.dump filename=…` while the node runs (e.g. every 45 s from a loop).
        for (String option : System.getProperty("bench.node-jvm-options", "").trim().split("\\s+")) {
            if (!option.isEmpty()) {
                b.jvmOption(option.replace("{run}", runName + "-" + String.join("-", nodes)));
            }
        }
        for (String n : nodes) {
            b.node(n);
        }
        return b.start();
    }

    private static void oneNode(OwnPostgres pg, Path war, int round, String label, Map<String, List<Double>> figures,
            SameRound reference) throws Exception {
        try (ClusterHarness cluster = cluster(pg, war, "bench-a")) {
            ClusterNode a = cluster.node("bench-a");
            HarnessDatabase db = cluster.database();
            fire(a, WARMUP, "warm" + round);
            awaitDone(pg, db, WARMUP);
            heartbeat(pg, db, label, figures);

            long total = WARMUP;
            for (int threads : FIRE_THREADS) {
                if (PHASE_WARMUP > 0) {
                    // the warm-up fires from 20 threads; from 4 the group commit makes smaller
                    // batches and the JIT compiles those paths in the measured phase (a third of
                    // the node's CPU there after a 25,000-episode warm-up): warm each phase's own way
                    fire(a, PHASE_WARMUP, "cdi-warm" + threads + "-" + round, threads);
                    total += PHASE_WARMUP;
                    awaitDone(pg, db, total);
                }
                Measure m = Measure.begin(pg, db, List.of(a));
                fire(a, EVENTS, "cdi" + threads + "-" + round, threads);
                total += EVENTS;
                awaitDone(pg, db, total);
                String scenario = label + "one node, CDI from " + threads + " threads";
                Result r = m.end(EVENTS, scenario, figures);
                reference.compare(threads, scenario, r, figures);
            }

            if (HTTP_EVENTS > 0) { // -Dbench.http-events=0: the CDI phases only
                postEvents(a, HTTP_WARMUP, "http-warm" + round, 8);
                total += HTTP_WARMUP;
                awaitDone(pg, db, total);
                Measure m = Measure.begin(pg, db, List.of(a));
                postEvents(a, HTTP_EVENTS, "http" + round, 8);
                total += HTTP_EVENTS;
                awaitDone(pg, db, total);
                // issue 34's target for single-event POSTs is a ratio to the reference too: to its
                // run scheduled from the fewest firing threads (4 by default), the harder of the two
                String posts = label + "one node, POST /events (8 clients)";
                reference.compare(FIRE_THREADS.get(0), posts, m.end(HTTP_EVENTS, posts, figures), figures);
                if (HTTP_BATCH > 0 && takesBatches(a)) {
                    int batches = Math.max(1, HTTP_EVENTS / HTTP_BATCH);
                    int warmBatches = Math.max(1, HTTP_WARMUP / HTTP_BATCH);
                    postBatches(a, warmBatches, HTTP_BATCH, "batch-warm" + round, 8);
                    total += (long) warmBatches * HTTP_BATCH;
                    awaitDone(pg, db, total);
                    m = Measure.begin(pg, db, List.of(a));
                    postBatches(a, batches, HTTP_BATCH, "batch" + round, 8);
                    total += (long) batches * HTTP_BATCH;
                    awaitDone(pg, db, total);
                    String lists = label + "one node, POST /events, " + HTTP_BATCH + " per POST (8 clients)";
                    reference.compare(FIRE_THREADS.get(0), lists, m.end(batches * HTTP_BATCH, lists, figures), figures);
                }
            }
            checkNoDuplicates(pg, db, total);
        }
    }

    private static void twoNodes(OwnPostgres pg, Path war, int round, String label, Map<String, List<Double>> figures) throws Exception {
        try (ClusterHarness cluster = cluster(pg, war, "bench-a", "bench-b")) {
            ClusterNode a = cluster.node("bench-a");
            ClusterNode b = cluster.node("bench-b");
            HarnessDatabase db = cluster.database();
            int half = WARMUP / 2;
            fire(a, half, "warm" + round);
            fire(b, half, "warm" + round); // the same ids: duplicates, deduplicated across the nodes
            awaitDone(pg, db, half);
            Measure m = Measure.begin(pg, db, List.of(a, b));
            ExecutorService both = Executors.newFixedThreadPool(2);
            try {
                Future<?> fa = both.submit(() -> fire(a, EVENTS / 2, "two-a" + round));
                Future<?> fb = both.submit(() -> fire(b, EVENTS / 2, "two-b" + round));
                fa.get();
                fb.get();
            } finally {
                both.shutdown();
            }
            awaitDone(pg, db, half + EVENTS / 2 * 2);
            m.end(EVENTS / 2 * 2, label + "two nodes, CDI", figures);
            checkNoDuplicates(pg, db, half + EVENTS / 2 * 2);
        }
    }

    // ---- driving -------------------------------------------------------------------------------

    private static Void fire(ClusterNode node, int count, String prefix) {
        return fire(node, count, prefix, 20);
    }

    private static Void fire(ClusterNode node, int count, String prefix, int threads) {
        HttpReplyText r = send(node, "POST", "/bench/fire?count=" + count + "&threads=" + threads + "&prefix=" + prefix, "");
        if (r.status != 200 || !r.body.contains("\"failed\":0")) {
            throw new IllegalStateException(node.name() + ": bench/fire answered " + r.status + " " + r.body);
        }
        return null;
    }

    private static void postEvents(ClusterNode node, int count, String prefix, int clients) throws Exception {
        BenchClients.run(clients, count, i -> {
            HttpReplyText r = send(node, "POST", "/events",
                    "{\"type\":\"bench.tick\",\"id\":\"" + prefix + "-" + i + "\",\"payload\":{}}");
            if (r.status != 202) {
                throw new IllegalStateException("POST /events answered " + r.status + " " + r.body);
            }
        });
    }

    /** Whether the node's build takes a JSON array of events (an empty one is refused with that message). */
    private static boolean takesBatches(ClusterNode node) {
        HttpReplyText r = send(node, "POST", "/events", "[]");
        boolean takes = r.status == 400 && r.body.contains("a batch holds");
        if (!takes) {
            System.out.println("[bench]   this build takes no batches of events (" + r.status + "): batch scenario left out");
        }
        return takes;
    }

    /** {@code batches} POSTs of {@code size} events each, as JSON arrays. */
    private static void postBatches(ClusterNode node, int batches, int size, String prefix, int clients) throws Exception {
        BenchClients.run(clients, batches, i -> {
            StringBuilder body = new StringBuilder("[");
            for (int k = 0; k < size; k++) {
                body.append(k == 0 ? "" : ",").append("{\"type\":\"bench.tick\",\"id\":\"").append(prefix).append('-').append(i)
                        .append('-').append(k).append("\",\"payload\":{}}");
            }
            HttpReplyText r = send(node, "POST", "/events", body.append(']').toString());
            if (r.status != 202) {
                throw new IllegalStateException("POST /events (a batch) answered " + r.status + " " + r.body);
            }
        });
    }

    private record HttpReplyText(int status, String body) {
    }

    private static HttpReplyText send(ClusterNode node, String method, String path, String body) {
        String credentials = "admin:" + node.adminPassword().orElse("");
        HttpRequest request = HttpRequest.newBuilder(URI.create(node.api() + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofMinutes(10))
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return new HttpReplyText(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitDone(OwnPostgres pg, HarnessDatabase db, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
        while (System.nanoTime() < deadline) {
            long done = count(pg, db, "SELECT COUNT(*) AS n FROM cyclium_episodes WHERE status = 'done'");
            if (done >= expected) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("not all " + expected + " episodes were done within 15 minutes");
    }

    /** A probe, as the probe role: pg_stat_statements counts only the nodes' role. */
    private static long count(OwnPostgres pg, HarnessDatabase db, String sql) {
        try (Connection c = pg.probe(db.name()); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    private static void checkNoDuplicates(OwnPostgres pg, HarnessDatabase db, long expected) {
        long episodes = count(pg, db, "SELECT COUNT(*) AS n FROM cyclium_episodes");
        long keys = count(pg, db, "SELECT COUNT(DISTINCT dedupe_key) AS n FROM cyclium_episodes");
        long completions = count(pg, db, "SELECT COUNT(*) AS n FROM cyclium_episode_steps WHERE kind = 'episode_completed'");
        long notDone = count(pg, db, "SELECT COUNT(*) AS n FROM cyclium_episodes WHERE status <> 'done'");
        System.out.printf(Locale.ROOT, "[bench]   %,d episodes, %,d keys, %,d completion rows, %d not done: %s%n", episodes, keys,
                completions, notDone, episodes == expected && keys == expected && completions == expected && notDone == 0
                        ? "0 duplicates" : "MISMATCH");
        if (episodes != expected || keys != expected || completions != expected || notDone != 0) {
            throw new IllegalStateException("duplicate or missing episodes: expected " + expected + " of each");
        }
    }

    /**
     * Heartbeat statements per tick on an idle node: the statements of the heartbeat's own SQL
     * (lease renewal, the node's last_seen, the cancel relay, the old queued-row touch) over the
     * number of renewals, one per tick, in 40 s.
     */
    private static void heartbeat(OwnPostgres pg, HarnessDatabase db, String label, Map<String, List<Double>> figures) throws Exception {
        resetStatements(pg);
        Thread.sleep(40_000); // lease 30 s: a tick every 10 s
        try (Connection c = pg.probe("postgres"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT"
                        + " COALESCE(SUM(calls) FILTER (WHERE query LIKE 'UPDATE cyclium_work_claims SET lease_until%owner_node%'"
                        // the renewal on PostgreSQL: rows locked in key order first (JpaWorkClaims)
                        + "   OR query LIKE 'WITH mine AS (SELECT dedupe_key FROM cyclium_work_claims WHERE owner_node%'), 0),"
                        + " COALESCE(SUM(calls) FILTER (WHERE query LIKE 'UPDATE cyclium_work_claims SET lease_until%'"
                        + "   OR query LIKE 'WITH mine AS (SELECT dedupe_key FROM cyclium_work_claims%'"
                        + "   OR query LIKE 'UPDATE cyclium_nodes SET last_seen%' OR query LIKE '%cancel_requested = %run_node%'"
                        + "   OR query LIKE 'UPDATE cyclium_episodes SET updated_at%queued_at%'"
                        + "   OR query LIKE 'SELECT dedupe_key, state, owner_node%owner_node%'), 0),"
                        + " COALESCE(SUM(calls) FILTER (WHERE upper(query) = 'BEGIN'), 0)"
                        + " FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid JOIN pg_database d ON d.oid = s.dbid"
                        + " WHERE s.toplevel AND r.rolname = 'postgres' AND d.datname = '" + db.name() + "'")) {
            rs.next();
            long ticks = Math.max(1, rs.getLong(1));
            double perTick = rs.getLong(2) / (double) ticks;
            System.out.printf(Locale.ROOT, "[bench]   idle node: %.1f heartbeat statements per tick (%d ticks); %d transactions"
                    + " of all background work in 40 s%n", perTick, ticks, rs.getLong(3));
            figures.computeIfAbsent(label + "heartbeat statements per tick (idle)", k -> new ArrayList<>()).add(perTick);
        }
    }

    // ---- measuring -------------------------------------------------------------------------------

    record Stats(long statements, long transactions) {
        static Stats read(OwnPostgres pg, String db) throws SQLException {
            // the view lives where the extension was created: the server's postgres database
            try (Connection c = pg.probe("postgres"); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT"
                            + " COALESCE(SUM(calls) FILTER (WHERE upper(query) NOT IN ('BEGIN', 'COMMIT', 'ROLLBACK')), 0),"
                            // pgjdbc sends BEGIN as a statement and ends a transaction in the protocol
                            + " COALESCE(SUM(calls) FILTER (WHERE upper(query) = 'BEGIN'), 0)"
                            + nodeStatements(db))) {
                rs.next();
                return new Stats(rs.getLong(1), rs.getLong(2));
            }
        }
    }

    /** FROM and WHERE of pg_stat_statements for the nodes' role in the node database (the probes use another role). */
    static String nodeStatements(String db) {
        return " FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid JOIN pg_database d ON d.oid = s.dbid"
                + " WHERE s.toplevel AND r.rolname = 'postgres' AND d.datname = '" + db + "'";
    }

    /** Autovacuum and autoanalyze runs so far on the tables of the node database. */
    private static long autovacuums(OwnPostgres pg, String db) throws SQLException {
        try (Connection c = pg.probe(db); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COALESCE(SUM(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_user_tables")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The phase's {@code limit} statements of most execution time (calls, mean, plans), with -Dbench.top-statements=N. */
    static void topStatements(OwnPostgres pg, String db, int limit) throws SQLException {
        if (limit <= 0) {
            return;
        }
        try (Connection c = pg.probe("postgres"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT calls, plans, total_exec_time, total_plan_time, rows,"
                        + " regexp_replace(left(query, 90), '\\s+', ' ', 'g')"
                        + nodeStatements(db) + " ORDER BY total_exec_time + total_plan_time DESC LIMIT " + limit)) {
            while (rs.next()) {
                long calls = rs.getLong(1);
                System.out.printf(Locale.ROOT, "[bench]       %,9d calls %,7d plans %,7.0f µs exec + %,5.0f µs plan per call, %,9d rows: %s%n",
                        calls, rs.getLong(2), rs.getDouble(3) * 1000 / Math.max(1, calls), rs.getDouble(4) * 1000 / Math.max(1, calls),
                        rs.getLong(5), rs.getString(6));
            }
        }
    }

    static void resetStatements(OwnPostgres pg) throws SQLException {
        // the probes run as another role, so they are never counted
        try (Connection c = pg.probe("postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_statements_reset()");
        }
    }

    static final class Measure {
        private final OwnPostgres pg;
        private final String db;
        private final List<Long> nodes;
        /** What one unit is called in the printed lines: episodes, or the reference's executions. */
        private final String unit;
        private final long jvmTicks;
        private final long jitTicks;
        private final long gcTicks;
        private final Map<Long, Long> pgTicks;
        private final long[] wal;
        private final long autovacuums;
        private final long started;

        private Measure(OwnPostgres pg, String db, List<Long> nodes, String unit) throws SQLException {
            this.unit = unit;
            this.pg = pg;
            this.db = db;
            this.nodes = nodes;
            resetStatements(pg);
            this.jvmTicks = nodes.stream().mapToLong(n -> cpuTicks(n, false)).sum();
            this.jitTicks = threadTicks(nodes, JIT_THREADS);
            this.gcTicks = threadTicks(nodes, GC_THREADS);
            this.pgTicks = postgresTicks(pg);
            this.wal = wal(pg);
            this.autovacuums = autovacuums(pg, db);
            Profiler.start(nodes);
            this.started = System.nanoTime();
        }

        static Measure begin(OwnPostgres pg, HarnessDatabase db, List<ClusterNode> nodes) throws SQLException {
            return new Measure(pg, db.name(), nodes.stream().map(ClusterNode::pid).toList(), "episode");
        }

        /** A phase of the db-scheduler reference: this JVM, its database. */
        static Measure reference(OwnPostgres pg) throws SQLException {
            return new Measure(pg, DbSchedulerReference.DATABASE, List.of(ProcessHandle.current().pid()), "execution");
        }

        /** The phase's figures printed and added to {@code figures}; returns its rate and CPU per unit. */
        Result end(int episodes, String scenario, Map<String, List<Double>> figures) throws SQLException {
            double seconds = (System.nanoTime() - started) / 1e9;
            long jvm = nodes.stream().mapToLong(n -> cpuTicks(n, false)).sum() - jvmTicks;
            Map<Long, Long> pgNow = postgresTicks(pg);
            Map<String, Long> pgKinds = postgresKinds(pgTicks, pgNow);
            long pgCpu = pgKinds.values().stream().mapToLong(Long::longValue).sum();
            long[] walNow = wal(pg);
            Profiler.stop(nodes, runName + "-" + scenario);
            Stats s = Stats.read(pg, db);
            double rate = episodes / seconds;
            double jvmUs = jvm * 1e6 / CLOCK_TICKS / episodes;
            double pgUs = pgCpu * 1e6 / CLOCK_TICKS / episodes;
            double jitUs = (threadTicks(nodes, JIT_THREADS) - jitTicks) * 1e6 / CLOCK_TICKS / episodes;
            double gcUs = (threadTicks(nodes, GC_THREADS) - gcTicks) * 1e6 / CLOCK_TICKS / episodes;
            double stmts = s.statements / (double) episodes;
            double txs = s.transactions / (double) episodes;
            System.out.printf(Locale.ROOT, "[bench]   %-36s %,8.0f %ss/s  CPU %,6.0f µs JVM + %,5.0f µs PostgreSQL per %s,"
                    + " %.2f statements and %.2f transactions (BEGINs) per %s%n", scenario, rate, unit, jvmUs, pgUs, unit, stmts, txs, unit);
            // PostgreSQL's CPU includes autovacuum of what earlier phases left: say when it ran in this one
            System.out.printf(Locale.ROOT, "[bench]   %-36s PostgreSQL: %d autovacuum/autoanalyze runs on the node database during it%n",
                    "", autovacuums(pg, db) - autovacuums);
            // where PostgreSQL's CPU went (by process), and the WAL it wrote (pg_stat_wal, the whole server)
            StringBuilder kinds = new StringBuilder();
            pgKinds.entrySet().stream().filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> kinds.append(kinds.length() == 0 ? "" : ", ")
                            .append(String.format(Locale.ROOT, "%,.0f µs %s", e.getValue() * 1e6 / CLOCK_TICKS / episodes, e.getKey())));
            System.out.printf(Locale.ROOT, "[bench]   %-36s of PostgreSQL's: %s%n", "", kinds);
            System.out.printf(Locale.ROOT, "[bench]   %-36s WAL per " + unit + ": %,.0f bytes in %.1f records, %.2f full-page images%n", "",
                    (walNow[0] - wal[0]) / (double) episodes, (walNow[1] - wal[1]) / (double) episodes,
                    (walNow[2] - wal[2]) / (double) episodes);
            figures.computeIfAbsent(scenario + ": WAL bytes/episode", k -> new ArrayList<>())
                    .add((walNow[0] - wal[0]) / (double) episodes);
            topStatements(pg, db, Integer.getInteger("bench.top-statements", 0));
            // a JVM still compiling its hot paths is not in its steady state: say how much of its CPU that was
            System.out.printf(Locale.ROOT, "[bench]   %-36s of the JVM's: %,.0f µs JIT compiler threads, %,.0f µs GC threads,"
                    + " %,.0f µs the rest%n", "", jitUs, gcUs, jvmUs - jitUs - gcUs);
            figures.computeIfAbsent(scenario + ": episodes/s", k -> new ArrayList<>()).add(rate);
            figures.computeIfAbsent(scenario + ": CPU µs/episode (JVM+PG)", k -> new ArrayList<>()).add(jvmUs + pgUs);
            figures.computeIfAbsent(scenario + ": CPU µs/episode, JVM without JIT and GC", k -> new ArrayList<>())
                    .add(jvmUs - jitUs - gcUs);
            figures.computeIfAbsent(scenario + ": statements/episode", k -> new ArrayList<>()).add(stmts);
            figures.computeIfAbsent(scenario + ": transactions/episode", k -> new ArrayList<>()).add(txs);
            return new Result(rate, jvmUs + pgUs);
        }
    }

    /** What a phase gives a same-round ratio: units per second and CPU µs per unit (JVM + PostgreSQL). */
    record Result(double rate, double cpuMicros) {
    }

    /** utime + stime (+ the reaped children's, for the postmaster whose backends come and go), in clock ticks. */
    private static long cpuTicks(long pid, boolean withChildren) {
        String[] f = stat(Path.of("/proc/" + pid));
        if (f == null) {
            return 0; // the process ended meanwhile: its time is in its parent's children's time
        }
        long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return withChildren ? t + Long.parseLong(f[13]) + Long.parseLong(f[14]) : t;
    }

    private static final java.util.regex.Pattern JIT_THREADS = java.util.regex.Pattern.compile("C[12] CompilerThre.*");
    private static final java.util.regex.Pattern GC_THREADS = java.util.regex.Pattern.compile("G1 .*|GC Thread.*|VM Thread");

    private static long threadTicks(List<Long> pids, java.util.regex.Pattern names) {
        return pids.stream().mapToLong(n -> threadTicks(n, names)).sum();
    }

    /** utime + stime of the process's threads whose name ({@code /proc/<pid>/task/<tid>/comm}) matches. */
    private static long threadTicks(long pid, java.util.regex.Pattern names) {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).trim();
                } catch (IOException gone) {
                    continue;
                }
                if (names.matcher(comm).matches()) {
                    String[] f = stat(task);
                    if (f != null) {
                        total += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    }
                }
            }
        } catch (IOException gone) {
            return 0;
        }
        return total;
    }

    /** The fields of {@code /proc/<pid>/stat} after the command name (index 1 is the parent's pid), or null when gone. */
    private static String[] stat(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }

    /**
     * CPU ticks of the postmaster (key 0: its own and its reaped children's) and of each of its
     * live children (by pid).
     */
    private static Map<Long, Long> postgresTicks(OwnPostgres pg) {
        long postmaster = pg.postmasterPid();
        Map<Long, Long> ticks = new java.util.HashMap<>();
        ticks.put(0L, cpuTicks(postmaster, true));
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                String[] f = stat(p);
                if (f != null && Long.parseLong(f[1]) == postmaster) {
                    ticks.put(Long.parseLong(p.getFileName().toString()), Long.parseLong(f[11]) + Long.parseLong(f[12]));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return ticks;
    }

    /**
     * The CPU ticks between two {@link #postgresTicks} by kind of process (its title: backends,
     * walwriter, checkpointer, ...). A child that ended meanwhile is in the postmaster's reaped
     * time, less what it had used before; that remainder is "ended processes" (autovacuum workers,
     * closed connections). The kinds sum to the whole server's ticks.
     */
    private static Map<String, Long> postgresKinds(Map<Long, Long> before, Map<Long, Long> after) {
        Map<String, Long> kinds = new java.util.TreeMap<>();
        long ended = after.get(0L) - before.get(0L);
        for (Map.Entry<Long, Long> e : before.entrySet()) {
            if (e.getKey() != 0L && !after.containsKey(e.getKey())) {
                ended -= e.getValue();
            }
        }
        kinds.put("ended processes", ended);
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            if (e.getKey() != 0L) {
                kinds.merge(processKind(e.getKey()), e.getValue() - before.getOrDefault(e.getKey(), 0L), Long::sum);
            }
        }
        return kinds;
    }

    private static String processKind(long pid) {
        String title;
        try {
            title = Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ').trim();
        } catch (IOException | RuntimeException gone) {
            return "ended processes";
        }
        if (title.contains("(") || title.contains("[local]")) {
            return "backends";
        }
        String kind = title.startsWith("postgres:") ? title.substring("postgres:".length()).trim() : title;
        return kind.isEmpty() ? "unnamed processes" : kind;
    }

    /** pg_stat_wal's bytes, records and full-page images so far (the whole server). */
    private static long[] wal(OwnPostgres pg) throws SQLException {
        try (Connection c = pg.probe("postgres"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT wal_bytes, wal_records, wal_fpi FROM pg_stat_wal")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
        }
    }
}
