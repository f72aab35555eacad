package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.it.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The daily retention run on two real nodes (PostgreSQL): both nodes' timers fire at the same
 * minute and exactly one of them starts the day's run; killed with SIGKILL half-way through the
 * archive, the run is taken over by the other node's next catch-up tick and finishes there from the
 * checkpoint — every old episode archived, none read or written twice, one run row, one takeover.
 */
class RetentionClusterIT {

    private static final int OLD_EPISODES = Integer.getInteger("cyclium.retention.cluster-rows", 40_000);
    /** How far ahead the timers fire: both nodes must be up and the rows loaded by then (boots took 70-80 s here). */
    private static final int LEAD_MINUTES = Integer.getInteger("cyclium.retention.cluster-lead-minutes", 5);

    @Test
    void two_nodes_run_the_days_retention_once_and_a_killed_run_is_finished_by_the_other_node() throws Exception {
        // the timers fire a few minutes from now (UTC): after both nodes have booted and the rows are in
        LocalDateTime due = LocalDateTime.now(ZoneOffset.UTC).plusMinutes(LEAD_MINUTES).withSecond(0).withNano(0);
        String dailyAt = due.format(DateTimeFormatter.ofPattern("HH:mm"));
        try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .env("CYCLIUM_RETENTION_DAILY_AT", dailyAt)
                .env("CYCLIUM_RETENTION_CATCH_UP_MINUTES", "1")
                .env("CYCLIUM_RETENTION_CHUNK_SIZE", "500")
                .node("node-a")
                .node("node-b")
                .start()) {
            HarnessDatabase db = cluster.database();
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status,"
                        + " started_at, finished_at, updated_at) SELECT gen_random_uuid()::text, 'bulk', 'archive', 'event',"
                        + " 'bulk-' || g, 'done', t, t, t FROM generate_series(1, " + OLD_EPISODES + ") g"
                        + " CROSS JOIN LATERAL (SELECT (clock_timestamp() AT TIME ZONE 'UTC') - INTERVAL '8 days' AS t) x");
                s.execute("ANALYZE cyclium_episodes");
            }
            LocalDateTime loaded = LocalDateTime.now(ZoneOffset.UTC);
            assertThat(loaded).as("the nodes booted and the rows were loaded before the timers fire at " + dailyAt
                    + " (raise -Dcyclium.retention.cluster-lead-minutes on a slower machine)").isBefore(due);
            String today = db.query("SELECT CAST(clock_timestamp() AT TIME ZONE 'UTC' AS DATE) AS d").get(0).get("d").toString();
            System.out.println("[figures] retention cluster: daily-at " + dailyAt + " UTC, run key " + today + ", "
                    + OLD_EPISODES + " old episodes");

            Map<String, Object> running = Await.until(Duration.ofMinutes(8), "the day's run to archive its first chunk", () -> {
                List<Map<String, Object>> rows = db.query("SELECT r.id, r.node_identity, s.written_count FROM cyclium_retention_runs r"
                        + " JOIN cyclium_retention_steps s ON s.run_id = r.id AND s.step_name = 'archive-episodes'"
                        + " WHERE r.run_key = ? AND r.status = 'running'", today);
                return rows.isEmpty() || ((Number) rows.get(0).get("written_count")).longValue() == 0 ? null : rows.get(0);
            });
            String first = (String) running.get("node_identity");
            String other = first.equals("node-a") ? "node-b" : "node-a";
            cluster.kill9(first);
            long archivedAtKill = count(db, "archived_at IS NOT NULL");
            System.out.println("[figures] retention cluster: " + first + " killed with " + archivedAtKill + " archived");
            assertThat(archivedAtKill).isLessThan(OLD_EPISODES);

            Map<String, Object> done = Await.until(Duration.ofMinutes(4), "the run to be finished by " + other, () -> {
                List<Map<String, Object>> rows = db.query("SELECT * FROM cyclium_retention_runs WHERE run_key = ? AND status <> 'running'", today);
                return rows.isEmpty() ? null : rows.get(0);
            });
            assertThat(done.get("status")).as(done.toString()).isEqualTo("completed");
            assertThat(done.get("node_identity")).isEqualTo(other);
            assertThat(((Number) done.get("attempts")).intValue()).as("one takeover").isEqualTo(2);
            assertThat(done.get("trigger_kind")).isEqualTo("timer");
            assertThat(db.query("SELECT COUNT(*) AS n FROM cyclium_retention_runs").get(0).get("n").toString()).isEqualTo("1");
            assertThat(count(db, "archived_at IS NOT NULL")).isEqualTo(OLD_EPISODES);
            Map<String, Object> archive = db.query("SELECT read_count, written_count FROM cyclium_retention_steps"
                    + " WHERE run_id = ? AND step_name = 'archive-episodes'", done.get("id")).get(0);
            assertThat(((Number) archive.get("read_count")).longValue()).as("read across both nodes").isEqualTo(OLD_EPISODES);
            assertThat(((Number) archive.get("written_count")).longValue()).as("archived across both nodes").isEqualTo(OLD_EPISODES);
            Map<String, Object> claim = db.query("SELECT state, owner_node, fence FROM cyclium_work_claims WHERE dedupe_key = ?",
                    "maintenance:retention:" + today).get(0);
            // fence 1: the first acquire; 2: the takeover. A third acquire (a second run of the day) would make it 3.
            assertThat(claim).as(claim.toString()).containsEntry("state", "done").containsEntry("owner_node", other);
            assertThat(((Number) claim.get("fence")).longValue()).isEqualTo(2);
            assertThat(startedLines(cluster, first, today)).as(first + " started the run once").isEqualTo(1);
            assertThat(startedLines(cluster, other, today)).as(other + " resumed it once").isEqualTo(1);

            // later ticks on the survivor find the day's run completed and start nothing
            Thread.sleep(70_000);
            assertThat(startedLines(cluster, other, today)).isEqualTo(1);
            assertThat(db.query("SELECT fence FROM cyclium_work_claims WHERE dedupe_key = ?", "maintenance:retention:" + today)
                    .get(0).get("fence").toString()).isEqualTo("2");
        }
    }

    private static long count(HarnessDatabase db, String where) {
        return ((Number) db.query("SELECT COUNT(*) AS n FROM cyclium_episodes WHERE " + where).get(0).get("n")).longValue();
    }

    private static long startedLines(ClusterHarness cluster, String node, String day) throws IOException {
        try (var lines = Files.lines(cluster.node(node).log())) {
            return lines.filter(l -> l.contains("Retention run " + day + " (") && l.contains(" started on " + node)).count();
        }
    }
}
