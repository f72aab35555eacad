package io.cyclium.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A large archive that a kill -9 interrupts and a restart completes: a child JVM archives chunk
 * by chunk and is killed (SIGKILL) a few chunks in; the resumed step archives every eligible row,
 * none twice (rows archived before the kill keep their archived_at), and its counts add up to
 * exactly the eligible rows. 20,000 rows by default, 1,000,000 with {@code -Dcyclium.soak=long};
 * prints rows/s as {@code [figures]} lines.
 */
class RetentionKillTest {

    private static final boolean LONG = "long".equals(System.getProperty("cyclium.soak"));
    private static final int ROWS = Integer.getInteger("cyclium.retention.rows", LONG ? 1_000_000 : 20_000);
    private static final int RECENT = 1_000;
    private static final int CHUNK = Integer.getInteger("cyclium.retention.chunk", LONG ? 2_000 : 500);

    @ParameterizedTest
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    void a_killed_archive_resumes_after_its_checkpoint_archiving_every_row_once(Vendor vendor) throws Exception {
        try (TestDatabase db = TestDatabase.create(vendor); TestJpa jpa = new TestJpa(db)) {
            long loadStart = System.nanoTime();
            load(db, ROWS, 8 * 86_400);
            load(db, RECENT, 86_400);
            System.out.printf("[figures] %s: loaded %,d + %,d episodes in %.1f s%n", vendor, ROWS, RECENT,
                    (System.nanoTime() - loadStart) / 1e9);
            RetentionStore store = new RetentionStore(jpa.vendor());
            String run = UUID.randomUUID().toString();
            jpa.run(em -> store.insertRun(em, run, "manual:" + run, "manual", "test", "child", Duration.ofDays(7), Optional.empty()));

            long childStart = System.nanoTime();
            Process child = new ProcessBuilder(javaBin(), "-cp", System.getProperty("java.class.path"),
                    RetentionWorker.class.getName(), vendor.name(), db.name(), run, String.valueOf(CHUNK))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.PIPE).start();
            int killAfter = Math.max(3, ROWS / CHUNK / 3);
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                int chunks = 0;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("chunk ") && ++chunks > killAfter) {
                        break;
                    }
                    if (line.startsWith("finished")) {
                        throw new AssertionError("the child finished before it was killed: " + line);
                    }
                }
                child.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback of its own, mid-chunk
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            double childSeconds = (System.nanoTime() - childStart) / 1e9;
            assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);
            long before = count(jpa, "archived_at IS NOT NULL");
            assertThat(before).as("archived before the kill").isPositive().isLessThan(ROWS);
            snapshot(db);
            System.out.printf("[figures] %s: child archived %,d rows before kill -9 (%.1f s incl. JVM start)%n", vendor, before,
                    childSeconds);

            long start = System.nanoTime();
            long resumed = new RetentionChunks(jpa, store).runStep(run, RetentionStep.ARCHIVE_EPISODES, Duration.ofDays(7), CHUNK,
                    () -> { });
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("[figures] %s: resumed run archived %,d rows in %.1f s = %,.0f rows/s (chunks of %d)%n",
                    vendor, resumed, seconds, resumed / seconds, CHUNK);

            assertThat(resumed).isEqualTo(ROWS - before);
            assertThat(count(jpa, "archived_at IS NOT NULL")).isEqualTo(ROWS);
            assertThat(count(jpa, "archived_at IS NULL AND dedupe_key LIKE 'bulk-86400-%'")).isEqualTo(RECENT);
            assertThat(changedSinceSnapshot(db)).as("rows archived before the kill whose archived_at moved").isZero();
            List<RetentionQueries.Execution> runs = jpa.inNewTransaction(em -> new RetentionQueries().recent(em, 5));
            RetentionQueries.StepCounts archive = runs.get(0).steps().get(0);
            assertThat(archive.step()).isEqualTo("archive-episodes");
            assertThat(archive.read()).as("rows read over both processes").isEqualTo(ROWS);
            assertThat(archive.written()).as("rows archived over both processes").isEqualTo(ROWS);
        }
    }

    private static String javaBin() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }

    /** {@code rows} done episodes (keys bulk-<age>-<n>) that finished {@code ageSeconds} ago, in one statement. */
    static void load(TestDatabase db, int rows, int ageSeconds) throws SQLException {
        String sql = db.vendor() == Vendor.POSTGRESQL
                ? "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, started_at,"
                        + " finished_at, updated_at) SELECT gen_random_uuid()::text, 'bulk', 'archive', 'event',"
                        + " 'bulk-" + ageSeconds + "-' || g, 'done', t, t, t FROM generate_series(1, " + rows + ") g"
                        + " CROSS JOIN LATERAL (SELECT (clock_timestamp() AT TIME ZONE 'UTC') - " + ageSeconds
                        + " * INTERVAL '1 second' - g * INTERVAL '1 millisecond' AS t) s"
                : "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, started_at,"
                        + " finished_at, updated_at) SELECT UUID(), 'bulk', 'archive', 'event', CONCAT('bulk-" + ageSeconds
                        + "-', seq), 'done', t, t, t FROM (SELECT seq, UTC_TIMESTAMP(6) - INTERVAL " + ageSeconds
                        + " SECOND - INTERVAL seq MICROSECOND AS t FROM seq_1_to_" + rows + ") s";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate(sql);
            s.execute(db.vendor() == Vendor.POSTGRESQL ? "ANALYZE cyclium_episodes" : "ANALYZE TABLE cyclium_episodes");
        }
    }

    private static void snapshot(TestDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kill_snapshot AS SELECT id, archived_at FROM cyclium_episodes WHERE archived_at IS NOT NULL");
        }
    }

    private static long changedSinceSnapshot(TestDatabase db) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM kill_snapshot k"
                + " JOIN cyclium_episodes e ON e.id = k.id WHERE e.archived_at <> k.archived_at OR e.archived_at IS NULL");
             var rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long count(TestJpa jpa, String where) {
        return jpa.inNewTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episodes WHERE " + where)
                .getSingleResult()).longValue());
    }
}
