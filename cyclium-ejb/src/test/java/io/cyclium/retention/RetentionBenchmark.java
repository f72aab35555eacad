package io.cyclium.retention;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * How fast retention archives and purges on each database, at the size the issue names: loads
 * {@code -Dbench.rows} (default 1,000,000) done episodes that finished eight days ago into a fresh
 * database, runs the archive step over all of them chunk by chunk (the statements and the
 * checkpoint the batch job's writer uses, through {@link RetentionChunks}, without the batch
 * runtime), then — after the statistics refresh the job's step listener makes — the purge step over
 * the archived rows ({@code -Dbench.stale-statistics=true} skips the refresh). Prints rows/s as
 * {@code [figures]} lines.
 * Not a test: run it by hand, on a machine as quiet as you can get.
 *
 * <pre>
 * mvn -q -B -o -pl cyclium-ejb test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.cyclium.retention.RetentionBenchmark [-Dbench.rows=1000000] \
 *     [-Dbench.chunk=500] [-Dbench.vendors=POSTGRESQL,MARIADB]
 * </pre>
 */
public final class RetentionBenchmark {

    private RetentionBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rows = Integer.getInteger("bench.rows", 1_000_000);
        int chunk = Integer.getInteger("bench.chunk", 500);
        List<Vendor> vendors = Arrays.stream(System.getProperty("bench.vendors", "POSTGRESQL,MARIADB").split(","))
                .map(v -> Vendor.valueOf(v.trim().toUpperCase(Locale.ROOT))).toList();
        for (Vendor vendor : vendors) {
            run(vendor, rows, chunk);
        }
    }

    private static void run(Vendor vendor, int rows, int chunk) throws Exception {
        try (TestDatabase db = TestDatabase.create(vendor); TestJpa jpa = new TestJpa(db)) {
            long t0 = System.nanoTime();
            RetentionKillTest.load(db, rows, 8 * 86_400);
            System.out.printf("[figures] %s: loaded %,d old episodes in %.1f s%n", vendor, rows, seconds(t0));

            RetentionStore store = new RetentionStore(jpa.vendor());
            RetentionChunks chunks = new RetentionChunks(jpa, store);
            String run = UUID.randomUUID().toString();
            jpa.run(em -> store.insertRun(em, run, "manual:" + run, "manual", "bench", "bench", Duration.ofDays(7),
                    Optional.of(Duration.ZERO)));

            long t1 = System.nanoTime();
            long archived = chunks.runStep(run, RetentionStep.ARCHIVE_EPISODES, Duration.ofDays(7), chunk, () -> { });
            double archiveSeconds = seconds(t1);
            System.out.printf("[figures] %s: archived %,d rows in %.1f s = %,.0f rows/s (chunks of %d)%n", vendor, archived,
                    archiveSeconds, archived / archiveSeconds, chunk);

            if (!Boolean.getBoolean("bench.stale-statistics")) {
                jpa.run(store::refreshStatisticsAfterArchive); // as the job's step listener does
            }
            long t2 = System.nanoTime();
            long purged = chunks.runStep(run, RetentionStep.PURGE_EPISODES, Duration.ZERO, chunk, () -> { });
            double purgeSeconds = seconds(t2);
            System.out.printf("[figures] %s: purged %,d rows in %.1f s = %,.0f rows/s (chunks of %d)%n", vendor, purged,
                    purgeSeconds, purged / purgeSeconds, chunk);
            if (archived != rows || purged != rows) {
                throw new IllegalStateException(vendor + ": archived " + archived + " and purged " + purged + " of " + rows);
            }
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
