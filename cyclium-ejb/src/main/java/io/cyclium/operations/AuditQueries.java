package io.cyclium.operations;

import io.cyclium.node.DbClock;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the audit trail newest first, keyset-paged on (occurred_at, id) like the episode list
 * (the cursor is the same kind: the last row's time and id), so a page deep in a long trail costs
 * what the first does and rows written meanwhile never shift a page.
 */
public final class AuditQueries {

    /** The most rows one page holds. */
    public static final int MAX_PAGE = 200;

    /** One page and where the next starts (null: this was the last). */
    public record Page(List<AuditRecord> records, String nextCursor) {
        public Page {
            records = List.copyOf(records);
        }
    }

    private final DatabaseVendor vendor;

    public AuditQueries(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    @SuppressWarnings("unchecked")
    public Page page(EntityManager em, AuditFilter filter, EpisodeCursor after, int limit) {
        int n = Math.max(1, Math.min(limit, MAX_PAGE));
        NativeSql sql = new NativeSql().sql("SELECT id, occurred_at, user_name, client_address, node_identity, action, subject_kind,"
                + " subject_id, episode_id, outcome, reason, detail FROM cyclium_audit WHERE 1 = 1");
        equal(sql, "user_name", filter.user());
        equal(sql, "action", filter.action());
        equal(sql, "subject_kind", filter.subjectKind());
        equal(sql, "subject_id", filter.subjectId());
        equal(sql, "outcome", filter.outcome());
        if (filter.from() != null) {
            sql.sql(" AND occurred_at >= ").value(Timestamp.valueOf(filter.from()));
        }
        if (filter.to() != null) {
            sql.sql(" AND occurred_at < ").value(Timestamp.valueOf(filter.to()));
        }
        if (after != null) {
            // older than the cursor in (occurred_at DESC, id DESC) order; the first bound lets the
            // database seek the index on occurred_at (see EpisodeListing)
            Timestamp at = Timestamp.valueOf(after.startedAt());
            sql.sql(" AND occurred_at <= ").value(at).sql(" AND (occurred_at < ").value(at)
                    .sql(" OR id < ").value(after.id()).sql(")");
        }
        sql.sql(" ORDER BY occurred_at DESC, id DESC ").around(n + 1, vendor::firstRows);
        List<Object[]> rows = sql.query(em).getResultList();
        List<AuditRecord> page = new ArrayList<>();
        for (Object[] r : rows.subList(0, Math.min(n, rows.size()))) {
            page.add(new AuditRecord((String) r[0], DbClock.toLocalDateTime(r[1]), (String) r[2], (String) r[3], (String) r[4],
                    (String) r[5], (String) r[6], (String) r[7], (String) r[8], (String) r[9], text(r[10]), text(r[11])));
        }
        String next = rows.size() > n ? new EpisodeCursor(page.get(n - 1).at(), page.get(n - 1).id()).encode() : null;
        return new Page(page, next);
    }

    private static void equal(NativeSql sql, String column, String value) {
        if (value != null) {
            sql.sql(" AND ").is(column, value);
        }
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
