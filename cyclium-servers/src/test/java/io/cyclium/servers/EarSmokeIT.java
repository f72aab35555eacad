package io.cyclium.servers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.ListeningSockets;
import io.cyclium.servers.ServerDatabase.Kind;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One cell of the matrix {Payara Micro (WAR), Payara Server, WildFly (EAR)} × {H2, PostgreSQL,
 * MariaDB} per test: the product archive (plus a slow test actor) on a server set up only by the
 * server-config scripts and files, one server start per cell and every check on it: deploy, schema migrated, an event's episode done with its
 * journal, console login page and form login, the same cyclium_* series by name on every server,
 * a stop during running episodes stamps them interrupted and the next start recovers them at once
 * (stale-after is two minutes: only the stamp can explain a quick recovery), redeploy.
 */
@ExtendWith(MatrixRotation.class)
class EarSmokeIT {

    static final Path SERVERS = Path.of(System.getProperty("cyclium.servers.dir", "target/servers")).toAbsolutePath();
    static final Pattern DEDUPE_KEY = Pattern.compile("\"dedupeKey\":\"([^\"]+)\"");
    private static final int SLOW_EPISODES = 3;

    /** Also {@code cyclium.episode.executor=managed}: episodes on the ManagedExecutorService the application defines. */
    @Test
    @Tag("matrix")
    void payara_server_on_h2() {
        smoke("payara", Kind.H2, false, true);
    }

    /**
     * Also {@code cyclium.security.identity=server}: the users, the smoke's admin included, are in
     * the domain's file realm (server-config's add-user.sh), whose groups are the roles.
     */
    @Test
    @Tag("matrix")
    void payara_server_on_postgresql_with_users_from_its_realm() {
        smoke("payara", Kind.POSTGRESQL, true);
    }

    @Test
    @Tag("matrix")
    void payara_server_on_mariadb() {
        smoke("payara", Kind.MARIADB);
    }

    @Test
    @Tag("ci")
    void payara_micro_on_h2() {
        smoke("micro", Kind.H2);
    }

    @Test
    @Tag("matrix")
    void payara_micro_on_postgresql() {
        smoke("micro", Kind.POSTGRESQL);
    }

    @Test
    @Tag("matrix")
    void payara_micro_on_mariadb() {
        smoke("micro", Kind.MARIADB);
    }

    /** Also {@code cyclium.episode.executor=managed}: episodes on the ManagedExecutorService the application defines. */
    @Test
    @Tag("matrix")
    void wildfly_on_h2() {
        smoke("wildfly", Kind.H2, false, true);
    }

    /** In CI: the one full server there (99 s at load 8-10, 170 s at 10-15), with JBeret's JDBC job repository. */
    @Test
    @Tag("ci")
    void wildfly_on_postgresql() {
        smoke("wildfly", Kind.POSTGRESQL);
    }

    /**
     * Also {@code cyclium.security.identity=server}: the users, the smoke's admin included, are in
     * the {@code other} domain's ApplicationRealm, whose groups are the roles.
     */
    @Test
    @Tag("matrix")
    void wildfly_on_mariadb_with_users_from_its_realm() {
        smoke("wildfly", Kind.MARIADB, true);
    }

    /** A server of this kind on a fresh database in a fresh folder, with the test timings. */
    static FullServer server(String server, String name, Path dir, ServerDatabase db, Map<String, String> properties) {
        Map<String, String> env = new java.util.HashMap<>(db.environment());
        env.put("CYCLIUM_DRIVER_JAR", db.driverJar(SERVERS.resolve("lib")).toString());
        env.put("CYCLIUM_ADMIN_PASSWORD", "smoke-" + UUID.randomUUID());
        env.put("CYCLIUM_PROPERTIES", writeProperties(dir, properties).toString());
        return switch (server) {
            case "payara" -> new PayaraServer(name, dir, env);
            case "wildfly" -> new WildFlyServer(name, dir, env);
            case "micro" -> new MicroNode(name, dir, env);
            default -> throw new IllegalArgumentException("no server kind " + server);
        };
    }

    /** The product's archive for this kind of server plus the slow test actor. */
    static Path smokeArchive(String server, Path dir) {
        return server.equals("micro")
                ? SmokeArchive.microWar(SERVERS.resolve("lib/cyclium-web-micro.war"), dir.resolve("cyclium-smoke.war"))
                : SmokeArchive.ear(SERVERS.resolve("lib/cyclium-ear.ear"), dir.resolve("cyclium-smoke.ear"));
    }

    private void smoke(String kind, Kind dbKind) {
        smoke(kind, dbKind, false);
    }

    private void smoke(String kind, Kind dbKind, boolean serverRealm) {
        smoke(kind, dbKind, serverRealm, false);
    }

    private void smoke(String kind, Kind dbKind, boolean serverRealm, boolean managedExecutor) {
        String cell = kind + "-" + dbKind.name().toLowerCase(Locale.ROOT);
        Path dir = SERVERS.resolve("runs").resolve(cell + "-" + UUID.randomUUID().toString().substring(0, 6));
        Instant begin = Instant.now();
        try (ServerDatabase db = ServerDatabase.create(dbKind, dir);
             FullServer server = server(kind, cell, dir, db, Map.of(
                     "cyclium.security.identity", serverRealm ? "server" : "builtin",
                     "cyclium.demo.enabled", "true",
                     "cyclium.recovery.initial-delay-ms", "2000",
                     "cyclium.recovery.interval-ms", "1000",
                     "cyclium.recovery.stale-after-ms", "120000",
                     "cyclium.episode.shutdown-ms", "3000",
                     "cyclium.episode.executor", managedExecutor ? "managed" : "threads"))) {
            Path ear = smokeArchive(kind, dir);
            String viewerPassword = "viewer-" + UUID.randomUUID();
            if (serverRealm) {
                server.addRealmUser("admin", server.env.get("CYCLIUM_ADMIN_PASSWORD"), "cyclium-admin");
                server.addRealmUser("bob", viewerPassword, "cyclium-viewer");
            }
            server.install(ear);
            step(cell, "installed, configured, deployed", begin);
            listensOnlyOnTheBindAddress(server, db);

            // schema: every migration of the vendor's folder applied
            long migrations = countSqlFiles(dbKind);
            // Flyway quotes its history table's names: lower case on H2, where unquoted names are upper
            // case. Only SQL rows count: on H2 Flyway also records the schema it created (type SCHEMA).
            String history = dbKind == Kind.H2
                    ? "SELECT COUNT(*) FROM \"cyclium_schema_history\" WHERE \"success\" = ? AND \"type\" = 'SQL'"
                    : "SELECT COUNT(*) FROM cyclium_schema_history WHERE success = ? AND type = 'SQL'";
            assertThat(db.count(history, true))
                    .as("applied migrations on " + db).isEqualTo(migrations);

            String key = eventEpisodeIsDone(server, db, "smoke-1");
            assertThat(text(server.serverLog())).as("the executor the node says it runs episodes on")
                    .contains(managedExecutor ? "episode tasks on java:app/cyclium/EpisodeExecutor" : "episode tasks on a pool of managed threads");
            assertThat(db.count("SELECT COUNT(*) FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                    + " WHERE e.dedupe_key = ?", key)).as("journal of the event's episode").isGreaterThanOrEqualTo(2);

            HttpResponse<String> loginPage = server.getUnauthenticated(server.app().resolve("login.xhtml"));
            assertThat(loginPage.statusCode()).isEqualTo(200);
            assertThat(loginPage.body()).contains("login:username").contains("login:password");
            HttpResponse<String> dashboard = server.formLogin();
            assertThat(dashboard.statusCode()).isEqualTo(200);
            assertThat(dashboard.uri().getPath()).endsWith("/index.xhtml");
            assertThat(dashboard.body()).contains(cell);

            if (serverRealm) {
                usersComeFromTheRealm(server, viewerPassword);
            }
            seriesAreExportedByName(server);
            step(cell, "event, journal, console login, metrics", begin);

            retentionRunIsRecorded(server, server, db);
            // again: a batch runtime may open what it needs on first use (Micro's embedded H2 did)
            listensOnlyOnTheBindAddress(server, db);
            step(cell, "retention run through the server's batch runtime", begin);

            drainAndRecover(server, db, cell);
            step(cell, "drain on stop and recovery at the next start", begin);

            // Micro has no redeploy in place (a stop and a start with the WAR: the drain step did that)
            if (server.redeploysInPlace()) {
                server.deploy(ear);
            }
            eventEpisodeIsDone(server, db, "smoke-2");
            step(cell, (server.redeploysInPlace() ? "redeployed" : "restarted") + ", an event's episode done again", begin);
            server.stop();
            step(cell, "stopped", begin);
        }
    }

    /**
     * Every TCP socket the server process listens on is on the bind address (HTTP, admin or
     * management, IIOP, transactions, ...: whatever the server opened, configured or not), and so is
     * the test's own H2 TCP server.
     */
    static void listensOnlyOnTheBindAddress(FullServer server, ServerDatabase db) {
        List<String> listening = ListeningSockets.of(server.pid());
        assertThat(listening).as(server + " listens on its HTTP port").anyMatch(a -> a.endsWith(":" + server.httpPort()));
        // Payara Micro's data grid (Hazelcast, 6900 or the next free port up) included: preboot.asadmin
        // gives it the interface and -Dhazelcast.socket.bind.any=false keeps it off the wildcard.
        assertThat(listening).as(server + ": every listening socket on " + FullServer.BIND)
                .allMatch(a -> ListeningSockets.on(a, FullServer.BIND));
        if (db.kind() == Kind.H2) {
            assertThat(ListeningSockets.of(ProcessHandle.current().pid())).as("the test's H2 TCP server on " + FullServer.BIND)
                    .isNotEmpty().allMatch(a -> ListeningSockets.on(a, FullServer.BIND));
        }
    }

    /**
     * Run retention now on {@code starter}: the server's batch runtime (its default job repository)
     * runs the job, and the run is completed in GET /maintenance/executions of {@code reader} (the
     * same node, or another one: the runs are Cyclium's own rows). Where the server keeps its batch
     * jobs in the database, the execution is there too, completed, under the id the start returned.
     * Returns that batch execution id.
     */
    static long retentionRunIsRecorded(FullServer starter, FullServer reader, ServerDatabase db) {
        // 409 while another run holds the day's claim (the other node's run, or the day's run a
        // catch-up tick started after daily-at): try again, as the answer says
        HttpResponse<String> started = starter.post("api/maintenance/retention", "");
        for (Instant giveUp = Instant.now().plusSeconds(120); started.statusCode() == 409 && Instant.now().isBefore(giveUp); ) {
            pause(Duration.ofSeconds(1));
            started = starter.post("api/maintenance/retention", "");
        }
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        Matcher id = Pattern.compile("\"runId\":\"([^\"]+)\"").matcher(started.body());
        Matcher execution = Pattern.compile("\"batchExecutionId\":(\\d+)").matcher(started.body());
        assertThat(id.find() && execution.find()).as(started.body()).isTrue();
        long executionId = Long.parseLong(execution.group(1));
        // the run object (flat: no braces inside) with this id and status completed
        Pattern completed = Pattern.compile("\\{[^{}]*\"id\":\"" + Pattern.quote(id.group(1)) + "\"[^{}]*\"status\":\"completed\"");
        await("retention run " + id.group(1) + " started on " + starter.name() + " completed in the executions API of "
                + reader.name(), Duration.ofSeconds(120),
                () -> completed.matcher(reader.get("api/maintenance/executions?limit=20").body()).find());
        starter.completedBatchExecutionSql().ifPresent(sql ->
                await("batch execution " + executionId + " of " + starter.name() + " completed in the job repository in " + db,
                        Duration.ofSeconds(60), () -> db.count(sql, executionId) == 1));
        return executionId;
    }

    /**
     * Posts a resource.updated event; the demo monitor's episode for it ends done. Returns its dedupe
     * key. The resource is the test's own: the monitor debounces per resource (1 s, trailing edge),
     * so an event for one of the demo load's resources (it publishes one every 20 s) could be
     * replaced by the demo's own event within the window, and its key would never get an episode.
     */
    static String eventEpisodeIsDone(FullServer server, ServerDatabase db, String id) {
        HttpResponse<String> r = server.post("api/events",
                "{\"type\":\"resource.updated\",\"id\":\"" + id + "\",\"payload\":{\"resource\":\"smoke-" + id + "\"}}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        Matcher m = DEDUPE_KEY.matcher(r.body());
        assertThat(m.find()).as("a matched expectation in " + r.body()).isTrue();
        String key = m.group(1);
        await("episode " + key + " done", Duration.ofSeconds(90), () ->
                db.count("SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ? AND status = 'done'", key) == 1);
        return key;
    }

    /**
     * The realm's viewer reads but gets 403 for a change, audited as refused; the realm's admin acts
     * and is audited; a wrong password is a 401.
     */
    private static void usersComeFromTheRealm(FullServer server, String viewerPassword) {
        String admin = server.env.get("CYCLIUM_ADMIN_PASSWORD");
        assertThat(server.callAs("bob", viewerPassword, "GET", "api/episodes", null).statusCode()).as("the realm's viewer reads")
                .isEqualTo(200);
        HttpResponse<String> bobSwitches = server.callAs("bob", viewerPassword, "PUT", "api/mode", "{\"mode\": \"full\"}");
        assertThat(bobSwitches.statusCode()).as(bobSwitches.body()).isEqualTo(403);
        HttpResponse<String> adminSwitches = server.callAs("admin", admin, "PUT", "api/mode", "{\"mode\": \"full\"}");
        assertThat(adminSwitches.statusCode()).as(adminSwitches.body()).isEqualTo(200);
        assertThat(server.callAs("bob", viewerPassword, "GET", "api/audit?user=admin&action=node.mode", null).body())
                .contains("\"user\":\"admin\"").contains("\"outcome\":\"ok\"");
        assertThat(server.callAs("bob", viewerPassword, "GET", "api/audit?user=bob&action=node.mode", null).body())
                .contains("\"outcome\":\"refused\"").contains("needs the role cyclium-admin");
        assertThat(server.callAs("bob", "not-" + viewerPassword, "GET", "api/episodes", null).statusCode())
                .as("a wrong password").isEqualTo(401);
    }

    /**
     * Series every server exports once an event's episode ran and the recovery sweep and the
     * workflows' reconcile (every second here) ran, by exact name (a sample of exactly that name:
     * {@code cyclium_workflow_instance} would not match {@code cyclium_workflow_instances}): MicroProfile Metrics on Payara and Micrometer on WildFly write the
     * same names and tags, which the dashboard and alert rules of server-config/observability/ read.
     */
    static final List<String> SERIES = List.of("cyclium_episode_stored_total", "cyclium_episode_started_total",
            "cyclium_episode_finished_total", "cyclium_episode_duration_seconds_count", "cyclium_episode_duration_seconds_sum",
            "cyclium_episode_duration_seconds_max", "cyclium_episode_duration_seconds_bucket", "cyclium_event_received_total",
            "cyclium_work_claims_total", "cyclium_episode_queued", "cyclium_episode_running", "cyclium_recovery_sweep_count",
            "cyclium_recovery_sweep_sum", "cyclium_workflow_instances");

    private static void seriesAreExportedByName(FullServer server) {
        URI metrics = server.metrics();
        String[] text = {""};
        try {
            await("every series of " + SERIES + " at " + metrics, Duration.ofSeconds(60), () -> {
                HttpReplyText r = server.scrape();
                text[0] = r.status() + "\n" + r.body();
                return r.status() == 200 && SERIES.stream().allMatch(s -> sampled(r.body(), s).findAny().isPresent());
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; no sample named "
                    + SERIES.stream().filter(s -> sampled(text[0], s).findAny().isEmpty()).toList()
                    + " in the last answer (HTTP " + text[0].lines().findFirst().orElse("?") + ")", e);
        }
        if (server instanceof WildFlyServer wildfly) {
            // configure.sh with CYCLIUM_METRICS_PASSWORD_FILE: the management user "metrics" only
            HttpReplyText anonymous = HttpReplyText.get(metrics);
            assertThat(anonymous.status()).as("an anonymous scrape of " + metrics).isEqualTo(401);
            assertThat(anonymous.body()).doesNotContain("cyclium_");
            assertThat(wildfly.scrapeAs("not-the-password").status()).as("a wrong metrics password").isEqualTo(401);
        }
        String scrape = text[0];
        assertThat(sampled(scrape, "cyclium_episode_finished_total")).as("labels of cyclium_episode_finished_total")
                .anyMatch(labels -> labels.contains("actor=\"") && labels.contains("status=\"done\""));
        assertThat(sampled(scrape, "cyclium_episode_duration_seconds_bucket")).as("buckets in seconds")
                .anyMatch(labels -> labels.matches(".*le=\"(0\\.1|1\\.0|1)\".*"));
        assertThat(sampled(scrape, "cyclium_work_claims_total")).anyMatch(labels -> labels.contains("outcome=\"acquired\""));
        assertThat(sampled(scrape, "cyclium_recovery_sweep_count")).anyMatch(labels -> labels.contains("outcome=\"found\""));
        // the demo's workflow is deployed: every in-flight status reads a number, 0 when there is none
        assertThat(sampled(scrape, "cyclium_workflow_instances")).as("labels of cyclium_workflow_instances")
                .anyMatch(labels -> labels.contains("workflow=\"resource_review\"") && labels.contains("status=\"pending\""))
                .anyMatch(labels -> labels.contains("workflow=\"resource_review\"") && labels.contains("status=\"blocked\""));
    }

    /** The label sets of every sample of exactly {@code series} in Prometheus text. */
    private static Stream<String> sampled(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + "(\\{[^}]*\\})?\\s").matcher(text);
        Stream.Builder<String> out = Stream.builder();
        while (m.find()) {
            out.add(m.group(1) == null ? "" : m.group(1));
        }
        return out.build();
    }

    private static void drainAndRecover(FullServer server, ServerDatabase db, String cell) {
        for (int i = 1; i <= SLOW_EPISODES; i++) {
            HttpResponse<String> r = server.post("api/episodes", "{\"actor\":\"server_smoke\",\"expectation\":\"slow\","
                    + "\"payload\":{\"steps\":400,\"stepMs\":250},\"idempotencyKey\":\"drain-" + i + "\"}");
            assertThat(r.statusCode()).as(r.body()).isIn(201, 202);
        }
        await(SLOW_EPISODES + " slow episodes running and journaling", Duration.ofSeconds(60), () -> db.count(
                "SELECT COUNT(*) FROM cyclium_episodes e WHERE e.actor_id = 'server_smoke' AND e.status = 'running'"
                        + " AND EXISTS (SELECT 1 FROM cyclium_episode_steps s WHERE s.episode_id = e.id)") == SLOW_EPISODES);

        server.stop();
        List<Map<String, Object>> rows = db.query("SELECT id, status, phase FROM cyclium_episodes WHERE actor_id = 'server_smoke'");
        assertThat(rows).as("every running episode stamped by the drain").hasSize(SLOW_EPISODES)
                .allSatisfy(row -> assertThat(row).containsEntry("status", "running").containsEntry("phase", "interrupted"));
        assertThat(db.count("SELECT COUNT(*) FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                + " WHERE e.actor_id = 'server_smoke' AND s.kind = 'interrupted'")).isEqualTo(SLOW_EPISODES);
        // The summary counts every episode the node was running, the demo actors' too: it must
        // name exactly as many as the journal has interrupted markers.
        long marked = db.count("SELECT COUNT(DISTINCT s.episode_id) FROM cyclium_episode_steps s WHERE s.kind = 'interrupted'");
        assertThat(marked).isGreaterThanOrEqualTo(SLOW_EPISODES);
        String summary = "Cyclium drain on " + cell + ": " + marked + " episode\\(s\\) stamped interrupted";
        assertThat(server.logText()).as("the drain's summary in the server log")
                .containsPattern((server.drainSummaryIsJul() ? "INFO.*(\\R.*)?" : "") + summary);

        server.start();
        Instant ready = Instant.now();
        // stale-after is 120 s: leaving 'interrupted' within 30 s is the stamp's doing, not staleness
        await("the interrupted episodes picked up again", Duration.ofSeconds(30), () -> db.count(
                "SELECT COUNT(*) FROM cyclium_episodes WHERE actor_id = 'server_smoke' AND phase = 'interrupted'") == 0);
        System.out.printf("[%s] interrupted episodes resumed %.1f s after the application answered%n", cell,
                Duration.between(ready, Instant.now()).toMillis() / 1000.0);
        long checkpoints = db.count("SELECT COUNT(*) FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                + " WHERE e.actor_id = 'server_smoke' AND s.kind = 'checkpoint'");
        // resumed means working again: each of them journals new units (they are far from done on purpose)
        await("the recovered episodes journaling again", Duration.ofSeconds(30), () -> db.count(
                "SELECT COUNT(*) FROM cyclium_episodes WHERE actor_id = 'server_smoke' AND status = 'running'") == SLOW_EPISODES
                && db.count("SELECT COUNT(*) FROM cyclium_episode_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                        + " WHERE e.actor_id = 'server_smoke' AND s.kind = 'checkpoint'") >= checkpoints + SLOW_EPISODES);
    }

    private static long countSqlFiles(Kind kind) {
        Path sql = Path.of(System.getProperty("cyclium.config.dir", "../server-config")).resolve("../sql")
                .resolve(kind.name().toLowerCase(Locale.ROOT)).normalize();
        try (Stream<Path> files = Files.list(sql)) {
            return files.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Path writeProperties(Path dir, Map<String, String> properties) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve("cyclium.properties");
            StringBuilder text = new StringBuilder("# written by the test: what an operator puts in CYCLIUM_PROPERTIES\n");
            properties.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
            Files.writeString(file, text);
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String text(Path file) {
        try {
            return java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout.toSeconds() + " s: " + what);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void step(String cell, String what, Instant begin) {
        System.out.printf("[%s] %s (%.0f s since start)%n", cell, what, Duration.between(begin, Instant.now()).toMillis() / 1000.0);
    }
}
