package io.cyclium.operations;

import io.cyclium.node.DbClock;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Episodes started and failed per minute over the last minutes, by the database's clock. One
 * grouped statement reads both series: starts bucketed by started_at, failures (status failed or
 * partially_failed) by the minute they finished. Minutes without either are filled in as zeros,
 * so a chart's x axis has no gaps.
 */
public final class EpisodeThroughput {

    /** The longest window served (a day); longer requests get this. */
    public static final int MAX_MINUTES = 1440;

    /** One minute: [minute, minute + 1 min), UTC on the database clock. */
    public record Minute(LocalDateTime minute, long started, long failed) {
    }

    /** The window [from, to) and every minute in it, oldest first. */
    public record Window(LocalDateTime from, LocalDateTime to, List<Minute> minutes) {

        public Window {
            minutes = List.copyOf(minutes);
        }

        public long started() {
            return minutes.stream().mapToLong(Minute::started).sum();
        }

        public long failed() {
            return minutes.stream().mapToLong(Minute::failed).sum();
        }
    }

    private final DatabaseVendor vendor;

    public EpisodeThroughput(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /**
     * The last {@code minutes} whole minutes up to and including the current one on the database
     * clock (capped at {@link #MAX_MINUTES}); fewer than 1 is a 400 naming {@code minutes}.
     */
    public Window lastMinutes(EntityManager em, int minutes) {
        if (minutes < 1) {
            throw Problem.invalid("minutes", "minutes must be at least 1, was " + minutes);
        }
        int n = Math.min(minutes, MAX_MINUTES);
        LocalDateTime now = DbClock.toLocalDateTime(em.createNativeQuery("SELECT " + vendor.utcNow()).getSingleResult());
        LocalDateTime to = now.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        return window(em, to.minusMinutes(n), to);
    }

    /** The minutes of [from, to); both must be whole minutes. */
    public Window window(EntityManager em, LocalDateTime from, LocalDateTime to) {
        Map<LocalDateTime, long[]> counts = new HashMap<>();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = statement(from, to).query(em).getResultList();
        for (Object[] r : rows) {
            counts.put(DbClock.toLocalDateTime(r[0]), new long[] {((Number) r[1]).longValue(), ((Number) r[2]).longValue()});
        }
        List<Minute> minutes = new ArrayList<>();
        for (LocalDateTime m = from; m.isBefore(to); m = m.plusMinutes(1)) {
            long[] c = counts.getOrDefault(m, new long[2]);
            minutes.add(new Minute(m, c[0], c[1]));
        }
        return new Window(from, to, minutes);
    }

    /** The grouped statement (the benchmark prints its plan). */
    public NativeSql statement(LocalDateTime from, LocalDateTime to) {
        Timestamp f = Timestamp.valueOf(from);
        Timestamp t = Timestamp.valueOf(to);
        return new NativeSql()
                .sql("SELECT x.minute_start, SUM(x.started), SUM(x.failed) FROM (")
                .sql("SELECT " + vendor.minuteOf("e.started_at") + " AS minute_start, 1 AS started, 0 AS failed"
                        + " FROM cyclium_episodes e WHERE e.started_at >= ").value(f).sql(" AND e.started_at < ").value(t)
                .sql(" UNION ALL SELECT " + vendor.minuteOf("e.finished_at") + ", 0, 1 FROM cyclium_episodes e"
                        + " WHERE e.status IN ('failed', 'partially_failed') AND e.finished_at >= ").value(f)
                .sql(" AND e.finished_at < ").value(t)
                .sql(") x GROUP BY x.minute_start ORDER BY x.minute_start");
    }
}
