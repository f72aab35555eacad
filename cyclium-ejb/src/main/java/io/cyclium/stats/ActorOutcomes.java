package io.cyclium.stats;

import io.cyclium.node.DbClock;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Per actor, over the last minutes on the database clock: episodes finished, how many succeeded,
 * and the median and 95th percentile of their durations (finished_at - started_at).
 *
 * <p>Counts come from one grouped statement, exact at any volume. Percentiles have no portable SQL
 * (PostgreSQL and H2 spell PERCENTILE_CONT as an ordered-set aggregate, MariaDB only as a window
 * function), so they are computed here from a bounded fetch of the newest {@link #SAMPLE} finished
 * episodes of the window; when the window holds more, {@link Row#sampled()} says the percentiles
 * describe the newest ones only. Both statements walk the (status, finished_at) index.
 */
public final class ActorOutcomes {

    /** The most durations read for the percentiles. */
    public static final int SAMPLE = 20_000;
    public static final int MAX_MINUTES = 1440;

    /**
     * One actor's figures. {@code successRate} is done / (done + failed + partially_failed), null
     * when none of those finished; canceled episodes count in {@code finished} but not in the rate.
     */
    public record Row(String actor, long finished, long done, long failed, long canceled, Double successRate,
            Long p50Ms, Long p95Ms, boolean sampled) {
    }

    /** The window and one row per actor that finished anything in it, by actor id. */
    public record Window(LocalDateTime from, LocalDateTime to, List<Row> actors) {
        public Window {
            actors = List.copyOf(actors);
        }
    }

    private final DatabaseVendor vendor;

    public ActorOutcomes(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    @SuppressWarnings("unchecked")
    public Window lastMinutes(EntityManager em, int minutes) {
        if (minutes < 1) {
            throw Problem.invalid("minutes", "minutes must be at least 1, was " + minutes);
        }
        int n = Math.min(minutes, MAX_MINUTES);
        LocalDateTime to = DbClock.toLocalDateTime(em.createNativeQuery("SELECT " + vendor.utcNow()).getSingleResult());
        LocalDateTime from = to.minus(Duration.ofMinutes(n));
        java.sql.Timestamp f = java.sql.Timestamp.valueOf(from);
        String terminal = "e.status IN ('done', 'partially_failed', 'failed', 'canceled') AND e.finished_at >= ";
        List<Object[]> counts = new NativeSql()
                .sql("SELECT e.actor_id, COUNT(*), SUM(CASE WHEN e.status = 'done' THEN 1 ELSE 0 END),"
                        + " SUM(CASE WHEN e.status IN ('failed', 'partially_failed') THEN 1 ELSE 0 END),"
                        + " SUM(CASE WHEN e.status = 'canceled' THEN 1 ELSE 0 END) FROM cyclium_episodes e WHERE " + terminal)
                .value(f).sql(" GROUP BY e.actor_id").query(em).getResultList();
        List<Object[]> durations = new NativeSql()
                .sql("SELECT e.actor_id, e.started_at, e.finished_at FROM cyclium_episodes e WHERE " + terminal).value(f)
                .sql(" ORDER BY e.finished_at DESC ").around(SAMPLE, vendor::firstRows).query(em).getResultList();
        boolean sampled = durations.size() >= SAMPLE;
        Map<String, List<Long>> byActor = new HashMap<>();
        for (Object[] d : durations) {
            long ms = Duration.between(DbClock.toLocalDateTime(d[1]), DbClock.toLocalDateTime(d[2])).toMillis();
            byActor.computeIfAbsent((String) d[0], k -> new ArrayList<>()).add(Math.max(0, ms));
        }
        Map<String, Row> rows = new TreeMap<>();
        for (Object[] c : counts) {
            String actor = (String) c[0];
            long finished = num(c[1]);
            long done = num(c[2]);
            long failed = num(c[3]);
            long canceled = num(c[4]);
            long[] sorted = byActor.getOrDefault(actor, List.of()).stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            rows.put(actor, new Row(actor, finished, done, failed, canceled,
                    done + failed == 0 ? null : (double) done / (done + failed),
                    percentile(sorted, 50), percentile(sorted, 95), sampled));
        }
        return new Window(from, to, new ArrayList<>(rows.values()));
    }

    /** Nearest-rank percentile of sorted values (null when there are none). */
    static Long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return null;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static long num(Object o) {
        return o == null ? 0 : ((Number) o).longValue();
    }
}
