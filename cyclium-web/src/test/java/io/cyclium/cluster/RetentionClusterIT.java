package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The daily retention run on two real nodes, on PostgreSQL and on MariaDB: both nodes tick at the
 * same instants and exactly one of them runs the day's archive; killed with SIGKILL a third of the
 * way through, the run is taken over by the other node's next catch-up tick and finishes there from
 * the checkpoint — every old episode archived exactly once (the rows archived before the kill keep
 * their archived_at, the step read and wrote each row once), none missed, nothing recent touched,
 * one run row, one takeover.
 *
 * <p>The rows go in before the nodes boot, with one set-based INSERT … SELECT per kind (a
 * generate_series on PostgreSQL, MariaDB's sequence engine), so the run needs no wait for a
 * time of day: {@code daily-at} is 00:00 (always due) and the test itself holds the day's work claim
 * until both nodes are up, then deletes it — the next tick (every 5 s) is a race of both nodes for
 * it. {@code -Dcyclium.retention.rows} sets the old rows (default 20,000; the figure is
 * 1,000,000), {@code -Dcyclium.retention.chunk} the chunk size (default 500),
 * {@code -Dit.test='RetentionClusterIT$OnMariadb'} one database (the MariaDB twin rotates, see
 * {@link MariadbRotation}). Prints
 * {@code [figures]} lines: rows/s before the kill and after the takeover, time to the kill, time from
 * the kill to the completed run. A run that crosses midnight UTC changes the day's key mid-test: run
 * it at least an hour from midnight at a million rows.
 */
class RetentionClusterIT {

    private static final int OLD_EPISODES = Integer.getInteger("cyclium.retention.rows", 20_000);
    private static final int CHUNK = Integer.getInteger("cyclium.retention.chunk", 500);
    /** Done episodes that finished a day ago: inside the 7-day window, never archived. */
    private static final int RECENT_EPISODES = 1_000;
    /** The old rows cycle through the four terminal statuses; every one of them is archived. */
    private static final List<String> TERMINAL = List.of("done", "failed", "canceled", "partially_failed");
    private static final Duration CATCH_UP = Duration.ofSeconds(5);
    private static final String GATE_OWNER = "retention-cluster-it";

    /** One cluster per database, one after the other: never two clusters' processes at once. */
    @org.junit.jupiter.api.Nested
    class OnPostgresql extends Scenario {
        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.POSTGRESQL;
        }
    }

    /** The same on MariaDB, in one build of each rotation (MariadbRotation); every build with -Dcyclium.cluster.rotation=all. */
    @org.junit.jupiter.api.Nested
    @ExtendWith(MariadbRotation.class)
    class OnMariadb extends Scenario {
        @Override
        HarnessDatabase.Vendor vendor() {
            return HarnessDatabase.Vendor.MARIADB;
        }
    }

    abstract static class Scenario {

        abstract HarnessDatabase.Vendor vendor();

        @Test
        void two_nodes_archive_the_days_rows_once_and_a_kill_9_mid_archive_is_finished_by_the_other_node() throws Exception {
            HarnessDatabase.Vendor vendor = vendor();
            long seedStart = System.nanoTime();
            String[] day = new String[1];
            try (ClusterHarness cluster = ClusterHarness.on(vendor)
                    .env("CYCLIUM_RETENTION_DAILY_AT", "00:00")
                    .env("CYCLIUM_RETENTION_CATCH_UP", CATCH_UP.toString())
                    .env("CYCLIUM_RETENTION_CHUNK_SIZE", String.valueOf(CHUNK))
                    .beforeBoot(db -> {
                        db.migrate();
                        seed(db, OLD_EPISODES, "old", 8 * 86_400);
                        seed(db, RECENT_EPISODES, "recent", 86_400);
                        day[0] = today(db);
                        holdTheDaysClaim(db, day[0]);
                        System.out.printf(Locale.ROOT, "[figures] retention cluster %s: %,d old + %,d recent episodes loaded in %.1f s%n",
                                vendor, OLD_EPISODES, RECENT_EPISODES, seconds(seedStart));
                    })
                    .node("node-a")
                    .node("node-b")
                    .start()) {
                HarnessDatabase db = cluster.database();
                String today = day[0];
                String claimKey = "maintenance:retention:" + today;
                assertThat(startedLines(cluster, "node-a", today) + startedLines(cluster, "node-b", today))
                        .as("no node ran while the test held the day's claim").isZero();

                // Both nodes are up: let their next tick race for the day's claim.
                try (Connection c = db.connect(); Statement s = c.createStatement()) {
                    assertThat(s.executeUpdate("DELETE FROM cyclium_work_claims WHERE dedupe_key = '" + claimKey + "' AND owner_node = '"
                            + GATE_OWNER + "'")).isEqualTo(1);
                }
                Instant released = Instant.now();
                long killAt = Math.max(CHUNK, OLD_EPISODES / 3);
                Map<String, Object> running = Await.until(Duration.ofMinutes(10).plusSeconds(OLD_EPISODES / 200), "the day's run to archive " + killAt + " rows", () -> {
                    List<Map<String, Object>> rows = archiveStep(db, today, "running");
                    return rows.isEmpty() || ((Number) rows.get(0).get("written_count")).longValue() < killAt ? null : rows.get(0);
                });
                String first = (String) running.get("node_identity");
                String other = first.equals("node-a") ? "node-b" : "node-a";
                Instant killed = cluster.kill9(first);
                cluster.waitForExit(first, Duration.ofSeconds(30));
                // A COMMIT already on the wire when the process died is applied by the server a moment later.
                Thread.sleep(1_000);
                long archivedAtKill = count(db, "archived_at IS NOT NULL");
                snapshotArchived(db);
                System.out.printf(Locale.ROOT, "[figures] retention cluster %s: %s killed %.1f s after the claim was released,"
                        + " %,d archived (%,.0f rows/s)%n", vendor, first, secondsBetween(released, killed), archivedAtKill,
                        archivedAtKill / secondsBetween(released, killed));
                assertThat(archivedAtKill).as("archived before the kill").isPositive().isLessThan(OLD_EPISODES);

                Instant takenOver = Await.until(Duration.ofMinutes(2), other + " to take the run over", () -> {
                    List<Map<String, Object>> rows = db.query("SELECT attempts FROM cyclium_retention_runs WHERE run_key = ?", today);
                    return ((Number) rows.get(0).get("attempts")).intValue() >= 2 ? Instant.now() : null;
                });
                Map<String, Object> done = Await.until(Duration.ofMinutes(10).plusSeconds(OLD_EPISODES / 100), "the run to be finished by " + other, () -> {
                    List<Map<String, Object>> rows = db.query("SELECT * FROM cyclium_retention_runs WHERE run_key = ? AND status <> 'running'", today);
                    return rows.isEmpty() ? null : rows.get(0);
                });
                Instant finished = Instant.now();
                long archivedAfter = OLD_EPISODES - archivedAtKill;
                System.out.printf(Locale.ROOT, "[figures] retention cluster %s: %s took over %.1f s after the kill and finished %.1f s after"
                        + " it; %,d rows archived after the takeover in %.1f s (%,.0f rows/s), chunks of %d%n", vendor, other,
                        secondsBetween(killed, takenOver), secondsBetween(killed, finished), archivedAfter,
                        secondsBetween(takenOver, finished), archivedAfter / secondsBetween(takenOver, finished), CHUNK);

                assertThat(done.get("status")).as(done.toString()).isEqualTo("completed");
                assertThat(done.get("node_identity")).isEqualTo(other);
                assertThat(((Number) done.get("attempts")).intValue()).as("one takeover").isEqualTo(2);
                assertThat(done.get("trigger_kind")).isEqualTo("timer");
                assertThat(db.query("SELECT COUNT(*) AS n FROM cyclium_retention_runs").get(0).get("n").toString()).isEqualTo("1");

                // Missing: every old row of every terminal status is archived; nothing recent is.
                Map<String, Long> expected = new LinkedHashMap<>();
                for (int i = 0; i < TERMINAL.size(); i++) {
                    expected.put(TERMINAL.get(i), (long) ((OLD_EPISODES - i + TERMINAL.size() - 1) / TERMINAL.size()));
                }
                Map<String, Long> archived = new LinkedHashMap<>();
                for (String status : TERMINAL) {
                    archived.put(status, count(db, "dedupe_key LIKE 'old-%' AND archived_at IS NOT NULL AND status = '" + status + "'"));
                }
                assertThat(archived).as("old rows archived per status").isEqualTo(expected);
                assertThat(count(db, "dedupe_key LIKE 'old-%' AND archived_at IS NULL")).as("old rows missed").isZero();
                assertThat(count(db, "dedupe_key LIKE 'recent-%' AND archived_at IS NULL")).as("recent rows left alone")
                        .isEqualTo(RECENT_EPISODES);
                // Twice: a row archived before the kill and again after would have a new archived_at.
                assertThat(movedSinceKill(db)).as("rows archived before the kill whose archived_at moved").isZero();
                Map<String, Object> archive = db.query("SELECT read_count, written_count, chunks FROM cyclium_retention_steps"
                        + " WHERE run_id = ? AND step_name = 'archive-episodes'", done.get("id")).get(0);
                assertThat(((Number) archive.get("read_count")).longValue()).as("rows read across both nodes").isEqualTo(OLD_EPISODES);
                assertThat(((Number) archive.get("written_count")).longValue()).as("rows archived across both nodes").isEqualTo(OLD_EPISODES);
                assertThat(((Number) archive.get("chunks")).longValue()).as("chunks across both nodes")
                        .isEqualTo((OLD_EPISODES + CHUNK - 1) / CHUNK);

                Map<String, Object> claim = db.query("SELECT state, owner_node, fence FROM cyclium_work_claims WHERE dedupe_key = ?",
                        claimKey).get(0);
                // fence 1: the first acquire; 2: the takeover. A third acquire (a second run of the day) would make it 3.
                assertThat(claim).as(claim.toString()).containsEntry("state", "done").containsEntry("owner_node", other);
                assertThat(((Number) claim.get("fence")).longValue()).isEqualTo(2);
                assertThat(startedLines(cluster, first, today)).as(first + " started the run once").isEqualTo(1);
                assertThat(startedLines(cluster, other, today)).as(other + " resumed it once").isEqualTo(1);

                // later ticks on the survivor find the day's run completed and start nothing
                Thread.sleep(CATCH_UP.multipliedBy(3).toMillis());
                assertThat(startedLines(cluster, other, today)).isEqualTo(1);
                assertThat(db.query("SELECT fence FROM cyclium_work_claims WHERE dedupe_key = ?", claimKey).get(0).get("fence").toString())
                        .isEqualTo("2");
            }
        }
    }

    /**
     * {@code rows} episodes keyed {@code <prefix>-<n>} that finished {@code ageSeconds} ago, the
     * n-th in status TERMINAL[(n - 1) % 4]: one INSERT … SELECT.
     */
    static void seed(HarnessDatabase db, int rows, String prefix, int ageSeconds) throws SQLException {
        String sql = db.vendor() == HarnessDatabase.Vendor.POSTGRESQL
                ? "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, started_at,"
                        + " finished_at, updated_at) SELECT gen_random_uuid()::text, 'bulk', 'archive', 'event', '" + prefix
                        + "-' || g, (ARRAY['done', 'failed', 'canceled', 'partially_failed'])[1 + (g - 1) % 4], t, t, t"
                        + " FROM generate_series(1, " + rows + ") g CROSS JOIN (SELECT (clock_timestamp() AT TIME ZONE 'UTC') - "
                        + ageSeconds + " * INTERVAL '1 second' AS t) x"
                : "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, started_at,"
                        + " finished_at, updated_at) SELECT UUID(), 'bulk', 'archive', 'event', CONCAT('" + prefix + "-', seq),"
                        + " ELT(1 + (seq - 1) % 4, 'done', 'failed', 'canceled', 'partially_failed'), t, t, t FROM"
                        + " (SELECT seq, UTC_TIMESTAMP(6) - INTERVAL " + ageSeconds + " SECOND AS t FROM seq_1_to_" + rows + ") s";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate(sql);
            s.execute(db.vendor() == HarnessDatabase.Vendor.POSTGRESQL ? "ANALYZE cyclium_episodes" : "ANALYZE TABLE cyclium_episodes");
        }
    }

    private static String today(HarnessDatabase db) {
        String sql = db.vendor() == HarnessDatabase.Vendor.POSTGRESQL ? "SELECT CAST(clock_timestamp() AT TIME ZONE 'UTC' AS DATE) AS d"
                : "SELECT UTC_DATE() AS d";
        waitOutMidnight();
        return db.query(sql).get(0).get("d").toString();
    }

    /**
     * The day's run is keyed by the UTC date, so a run that crosses midnight would meet the next
     * day's run. A test starting in the last ten minutes of a UTC day (one run in 144) waits for the
     * new day instead of failing: a run here takes one to two minutes.
     */
    private static void waitOutMidnight() {
        LocalTime now = LocalTime.now(ZoneOffset.UTC);
        if (!now.isBefore(LocalTime.of(23, 50))) {
            long waitMs = Duration.between(now, LocalTime.MAX).toMillis() + 2_000;
            System.out.printf(Locale.ROOT, "[retention cluster] %s UTC: waiting %.0f s for the next UTC day (the run key is the date)%n",
                    now, waitMs / 1000.0);
            try {
                Thread.sleep(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** A live claim on the day's key, leased for an hour by an owner that is no node: every tick finds it busy. */
    private static void holdTheDaysClaim(HarnessDatabase db, String day) throws SQLException {
        String in1h = db.vendor() == HarnessDatabase.Vendor.POSTGRESQL ? "(clock_timestamp() AT TIME ZONE 'UTC') + INTERVAL '1 hour'"
                : "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR";
        String now = db.vendor() == HarnessDatabase.Vendor.POSTGRESQL ? "(clock_timestamp() AT TIME ZONE 'UTC')" : "UTC_TIMESTAMP(6)";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO cyclium_work_claims (dedupe_key, state, owner_node, lease_until, claimed_at, attempt, fence,"
                    + " work_type) VALUES ('maintenance:retention:" + day + "', 'claimed', '" + GATE_OWNER + "', " + in1h + ", " + now
                    + ", 1, 1, 'maintenance')");
        }
    }

    private static List<Map<String, Object>> archiveStep(HarnessDatabase db, String day, String runStatus) {
        return db.query("SELECT r.id, r.node_identity, s.written_count FROM cyclium_retention_runs r"
                + " JOIN cyclium_retention_steps s ON s.run_id = r.id AND s.step_name = 'archive-episodes'"
                + " WHERE r.run_key = ? AND r.status = ?", day, runStatus);
    }

    private static void snapshotArchived(HarnessDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kill_snapshot AS SELECT id, archived_at FROM cyclium_episodes WHERE archived_at IS NOT NULL");
        }
    }

    private static long movedSinceKill(HarnessDatabase db) {
        return ((Number) db.query("SELECT COUNT(*) AS n FROM kill_snapshot k JOIN cyclium_episodes e ON e.id = k.id"
                + " WHERE e.archived_at IS NULL OR e.archived_at <> k.archived_at").get(0).get("n")).longValue();
    }

    private static long count(HarnessDatabase db, String where) {
        return ((Number) db.query("SELECT COUNT(*) AS n FROM cyclium_episodes WHERE " + where).get(0).get("n")).longValue();
    }

    private static long startedLines(ClusterHarness cluster, String node, String day) throws IOException {
        try (var lines = Files.lines(cluster.node(node).log())) {
            return lines.filter(l -> l.contains("Retention run " + day + " (") && l.contains(" started on " + node)).count();
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    private static double secondsBetween(Instant from, Instant to) {
        return Math.max(0.001, Duration.between(from, to).toMillis() / 1000.0);
    }
}
