package io.cyclium.operations;

import io.cyclium.episode.EpisodeEntity;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Objects;

/**
 * The episode list, newest first, one page per statement with keyset paging: a page after a
 * cursor reads only rows strictly older than the cursor's (started_at, id), so page 5,000 costs
 * what page 1 costs as long as an index leads with the filter's column and continues with
 * (started_at, id) (see sql/&lt;vendor&gt;/V5__episode_list_indexes.sql). No COUNT(*): a total over
 * a million rows is what makes such lists slow.
 */
public final class EpisodeListing {

    /** The largest page, whatever a caller asks for. */
    public static final int MAX_PAGE = 200;

    private final DatabaseVendor vendor;
    private final ConcurrencyWaits waits;

    public EpisodeListing(DatabaseVendor vendor) {
        this(vendor, null);
    }

    /** Explaining with {@code waits} why queued episodes wait for a cluster-wide limit (null: not at all). */
    public EpisodeListing(DatabaseVendor vendor, ConcurrencyWaits waits) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
        this.waits = waits;
    }

    /** Page size as served: at least 1, at most {@link #MAX_PAGE}. */
    public static int capped(int size) {
        return Math.max(1, Math.min(size, MAX_PAGE));
    }

    public EpisodePage page(EntityManager em, EpisodeFilter filter, EpisodeCursor after, int size) {
        int n = capped(size);
        // one row more than the page tells whether another page follows, without counting
        @SuppressWarnings("unchecked")
        List<EpisodeEntity> rows = statement(filter, after, n + 1).query(em, EpisodeEntity.class).getResultList();
        List<EpisodeEntity> shown = rows.stream().limit(n).toList();
        List<EpisodeView> page = waits == null ? shown.stream().map(EpisodeView::of).toList() : waits.views(em, shown);
        String next = rows.size() > n ? EpisodeCursor.after(page.get(n - 1)).encode() : null;
        return new EpisodePage(page, next);
    }

    /** The statement {@link #page} runs for {@code limit} rows (the benchmark prints its plan). */
    public NativeSql statement(EpisodeFilter filter, EpisodeCursor after, int limit) {
        NativeSql sql = matching(new NativeSql().sql("SELECT e.* FROM cyclium_episodes e WHERE 1 = 1"), filter);
        if (after != null) {
            // "older than the cursor" in (started_at DESC, id DESC) order. The first half is
            // redundant but gives every database a range bound on started_at to seek the index
            // with; a row-value comparison (a, b) < (?, ?) would say the same, but MariaDB does
            // not turn it into an index range.
            sql.sql(" AND e.started_at <= ").value(time(after.startedAt()))
                    .sql(" AND (e.started_at < ").value(time(after.startedAt()))
                    .sql(" OR e.id < ").value(after.id()).sql(")");
        }
        sql.sql(" ORDER BY e.started_at DESC, e.id DESC ");
        return sql.around(limit, vendor::firstRows);
    }

    /**
     * The ids of the first {@code limit} episodes the filter matches, in the list's order (newest
     * first): what a bulk action freezes as its targets ({@code BulkActions}).
     */
    public List<String> ids(EntityManager em, EpisodeFilter filter, int limit) {
        NativeSql sql = matching(new NativeSql().sql("SELECT e.id FROM cyclium_episodes e WHERE 1 = 1"), filter)
                .sql(" ORDER BY e.started_at DESC, e.id DESC ").around(limit, vendor::firstRows);
        return sql.query(em).getResultList().stream().map(String.class::cast).toList();
    }

    /** How many episodes the filter matches (a bulk action's preview; the list itself never counts). */
    public long count(EntityManager em, EpisodeFilter filter) {
        NativeSql sql = matching(new NativeSql().sql("SELECT COUNT(*) FROM cyclium_episodes e WHERE 1 = 1"), filter);
        return ((Number) sql.query(em).getSingleResult()).longValue();
    }

    /** Appends the filter's conditions (every value bound) to a statement over {@code cyclium_episodes e}. */
    private static NativeSql matching(NativeSql sql, EpisodeFilter filter) {
        equal(sql, "e.actor_id", filter.actorId(), false);
        equal(sql, "e.expectation_id", filter.expectationId(), false);
        equal(sql, "e.status", filter.status(), false);
        equal(sql, "e.source_stack", filter.stack(), true);
        equal(sql, "e.source_env", filter.env(), true);
        if (filter.startedFrom() != null) {
            sql.sql(" AND e.started_at >= ").value(time(filter.startedFrom()));
        }
        if (filter.startedBefore() != null) {
            sql.sql(" AND e.started_at < ").value(time(filter.startedBefore()));
        }
        return sql;
    }

    private static void equal(NativeSql sql, String column, String value, boolean unsetMeansNull) {
        if (value == null) {
            return;
        }
        sql.sql(" AND ").is(column, unsetMeansNull && EpisodeFilter.UNSET.equals(value) ? null : value);
    }

    private static Timestamp time(LocalDateTime t) {
        return Timestamp.valueOf(t);
    }
}
