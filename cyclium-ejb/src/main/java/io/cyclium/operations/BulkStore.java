package io.cyclium.operations;

import io.cyclium.node.DbClock;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The SQL of bulk actions (V18 {@code cyclium_bulk_actions}, {@code cyclium_bulk_items}) and the
 * one owner of their guards. Every guard is one conditional UPDATE; zero rows means another node
 * won, or the caller's lease is gone, which is normal. Leases are on the database's clock.
 *
 * <p>Why no item is done twice: an item is taken ({@code pending → working}) only by the node that
 * holds the action's current fence with an unexpired lease, in the same statement; a node taking
 * the action over after the lease lapsed raises the fence, so the node that lost it can take no
 * further item and cannot record a result for an item it took ({@link #record} needs its fence).
 * An item left {@code working} by a node that died is taken again only by a higher fence, and its
 * operation then meets the single-episode guard of what the dead node may already have done (an
 * episode already canceled, an attempt whose dedupe key already exists, an output no longer
 * failed), so the effect happens once and the item is recorded as skipped with that reason.
 */
public final class BulkStore {

    public static final String RUNNING = "running";
    public static final String DONE = "done";
    /** Canceled by an operator: its items not yet taken were recorded as skipped then. */
    public static final String CANCELED = "canceled";
    /** The reason of an item a cancel of its action skipped. */
    public static final String CANCELED_REASON = "action canceled";

    /** Rows per multi-row INSERT of the frozen targets (SQL Server takes at most 1,000 per VALUES). */
    static final int INSERT_ROWS = 500;

    private final DatabaseTime time;

    public BulkStore(DatabaseTime time) {
        this.time = time;
    }

    /** An open item: not yet recorded. */
    public record OpenItem(int itemNo, String episodeId, boolean interrupted) {
    }

    /**
     * Stores an accepted action with its frozen targets, claimed by {@code node} at fence 1 until
     * {@code lease} from now, in the caller's transaction: the action exists with all its items or
     * not at all.
     */
    public void insert(EntityManager em, String id, BulkKind kind, String filterJson, String by, String node, Duration lease,
            List<String> episodeIds) {
        NativeSql action = new NativeSql().sql("INSERT INTO cyclium_bulk_actions (id, action, filter_json, status, total,"
                + " created_by, created_at, claimed_by, fence, lease_until) VALUES (").value(id).sql(", ").value(kind.wire())
                .sql(", ").value(filterJson).sql(", ").value(RUNNING).sql(", ").value(episodeIds.size()).sql(", ").value(by)
                .sql(", ");
        time.now(action).sql(", ").value(node).sql(", 1, ");
        time.plusMillis(action, lease.toMillis()).sql(")").executeUpdate(em);
        for (int from = 0; from < episodeIds.size(); from += INSERT_ROWS) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = from; i < Math.min(from + INSERT_ROWS, episodeIds.size()); i++) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("action_id", id);
                row.put("item_no", i + 1);
                row.put("episode_id", episodeIds.get(i));
                row.put("result", BulkItemResult.PENDING.wire());
                row.put("fence", 0);
                rows.add(row);
            }
            new NativeSql().insertRows("cyclium_bulk_items", rows).executeUpdate(em);
        }
    }

    /**
     * Takes over a running action whose lease has lapsed (its node died or was redeployed): raises
     * the fence and names {@code node}; returns the new fence, empty when the action is finished or
     * another node holds it (or took it first).
     */
    public OptionalLong claim(EntityManager em, String id, String node, Duration lease) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_actions SET claimed_by = ").value(node)
                .sql(", fence = fence + 1, lease_until = ");
        time.plusMillis(sql, lease.toMillis()).sql(" WHERE id = ").value(id).sql(" AND status = ").value(RUNNING)
                .sql(" AND (lease_until IS NULL OR lease_until < ");
        if (time.now(sql).sql(")").executeUpdate(em) == 0) {
            return OptionalLong.empty();
        }
        Object fence = new NativeSql().sql("SELECT fence FROM cyclium_bulk_actions WHERE id = ").value(id)
                .sql(" AND claimed_by = ").value(node).query(em).getSingleResult();
        return OptionalLong.of(((Number) fence).longValue());
    }

    /** Extends the holder's lease; false: the fence moved on (another node took the action over) or it is finished. */
    public boolean renew(EntityManager em, String id, long fence, Duration lease) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_actions SET lease_until = ");
        return time.plusMillis(sql, lease.toMillis()).sql(" WHERE id = ").value(id).sql(" AND fence = ").value(fence)
                .sql(" AND status = ").value(RUNNING).executeUpdate(em) == 1;
    }

    /** Gives the lease back (a node that stops early, e.g. draining): any node may take the action over at once. */
    public void release(EntityManager em, String id, long fence) {
        new NativeSql().sql("UPDATE cyclium_bulk_actions SET lease_until = NULL, claimed_by = NULL WHERE id = ").value(id)
                .sql(" AND fence = ").value(fence).sql(" AND status = ").value(RUNNING).executeUpdate(em);
    }

    /** The next open items in order: pending, or working (left by a node that lost the action). */
    public List<OpenItem> open(EntityManager em, String id, int limit) {
        List<?> rows = new NativeSql().sql("SELECT item_no, episode_id, result FROM cyclium_bulk_items WHERE action_id = ")
                .value(id).sql(" AND result IN (").value(BulkItemResult.PENDING.wire()).sql(", ")
                .value(BulkItemResult.WORKING.wire()).sql(") ORDER BY item_no").query(em).setMaxResults(limit).getResultList();
        List<OpenItem> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new OpenItem(((Number) c[0]).intValue(), (String) c[1], BulkItemResult.WORKING.wire().equals(c[2])));
        }
        return out;
    }

    /**
     * Takes one item for the holder of {@code fence}: a pending item, or one a lower fence left
     * working. Only while the action's fence is still {@code fence}, its lease has not run out and
     * it is still running (not canceled, on any node), checked in the same statement.
     */
    public boolean take(EntityManager em, String id, int itemNo, long fence) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_items SET result = ").value(BulkItemResult.WORKING.wire())
                .sql(", fence = ").value(fence).sql(" WHERE action_id = ").value(id).sql(" AND item_no = ").value(itemNo)
                .sql(" AND (result = ").value(BulkItemResult.PENDING.wire()).sql(" OR (result = ")
                .value(BulkItemResult.WORKING.wire()).sql(" AND fence < ").value(fence).sql("))")
                .sql(" AND EXISTS (SELECT 1 FROM cyclium_bulk_actions a WHERE a.id = ").value(id).sql(" AND a.fence = ")
                .value(fence).sql(" AND a.status = ").value(RUNNING).sql(" AND a.lease_until > ");
        return time.now(sql).sql(")").executeUpdate(em) == 1;
    }

    /** Records the final result of an item the holder of {@code fence} took; false: it is no longer its own. */
    public boolean record(EntityManager em, String id, int itemNo, long fence, BulkItemResult result, String reason) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_items SET result = ").value(result.wire()).sql(", ")
                .sql("reason = ").value(reason == null ? NativeSql.raw("NULL") : shorten(reason, 1000)).sql(", finished_at = ");
        return time.now(sql).sql(" WHERE action_id = ").value(id).sql(" AND item_no = ").value(itemNo)
                .sql(" AND result = ").value(BulkItemResult.WORKING.wire()).sql(" AND fence = ").value(fence)
                .executeUpdate(em) == 1;
    }

    /**
     * Cancels a running action: the status becomes {@code canceled}, then every item still pending
     * is recorded as skipped ({@link #CANCELED_REASON}), in the caller's transaction. Why an item is
     * either taken or skipped, never both: {@link #take} needs the status running, and the skip
     * needs the item pending; both are row updates of the item, so whichever runs second waits for
     * the first's row lock and then no longer matches. An item taken before the cancel stays
     * {@code working} for its holder to record; {@link #settleCanceled} closes the ones whose
     * holder died. Returns how many items it skipped; empty: the action is not running (finished,
     * canceled, or unknown).
     */
    public OptionalInt cancel(EntityManager em, String id) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_actions SET status = ").value(CANCELED)
                .sql(", claimed_by = NULL, finished_at = ");
        if (time.now(sql).sql(" WHERE id = ").value(id).sql(" AND status = ").value(RUNNING).executeUpdate(em) == 0) {
            return OptionalInt.empty();
        }
        NativeSql skip = new NativeSql().sql("UPDATE cyclium_bulk_items SET result = ").value(BulkItemResult.SKIPPED.wire())
                .sql(", reason = ").value(CANCELED_REASON).sql(", finished_at = ");
        int skipped = time.now(skip).sql(" WHERE action_id = ").value(id).sql(" AND result = ")
                .value(BulkItemResult.PENDING.wire()).executeUpdate(em);
        return OptionalInt.of(skipped + settleCanceled(em, id));
    }

    /**
     * Records as skipped the items of the canceled action {@code id} still {@code working} after
     * the lease their holder had at the cancel ran out: that node died (or stalled) between taking
     * and recording them, so it may have done them. Nothing while that lease runs. Racing a late
     * {@link #record} of its holder, the {@code working} guard lets one of them win.
     */
    public int settleCanceled(EntityManager em, String id) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_items SET result = ").value(BulkItemResult.SKIPPED.wire())
                .sql(", reason = ").value(CANCELED_REASON + " after an interrupted attempt: it may have been done")
                .sql(", finished_at = ");
        time.now(sql).sql(" WHERE result = ").value(BulkItemResult.WORKING.wire()).sql(" AND action_id = ").value(id)
                .sql(" AND action_id IN (SELECT a.id FROM cyclium_bulk_actions a WHERE a.status = ").value(CANCELED)
                .sql(" AND (a.lease_until IS NULL OR a.lease_until < ");
        return time.now(sql).sql("))").executeUpdate(em);
    }

    /** Marks the action done when no item is open any more; false: items remain, or the fence moved on. */
    public boolean finish(EntityManager em, String id, long fence) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_bulk_actions SET status = ").value(DONE)
                .sql(", claimed_by = NULL, lease_until = NULL, finished_at = ");
        return time.now(sql).sql(" WHERE id = ").value(id).sql(" AND fence = ").value(fence).sql(" AND status = ")
                .value(RUNNING).sql(" AND NOT EXISTS (SELECT 1 FROM cyclium_bulk_items i WHERE i.action_id = ").value(id)
                .sql(" AND i.result IN (").value(BulkItemResult.PENDING.wire()).sql(", ")
                .value(BulkItemResult.WORKING.wire()).sql("))").executeUpdate(em) == 1;
    }

    /**
     * An action nobody holds: running (to be taken over and continued), or canceled with items its
     * dead holder left {@code working} (to be settled, {@link #settleCanceled}).
     */
    public record Orphan(String id, boolean canceled) {
    }

    /**
     * The actions nobody holds (lease lapsed or given back), oldest first: running ones, and
     * canceled ones that still have a {@code working} item. One read, so a node with nothing to
     * continue or settle sends no UPDATE; a canceled action drops out once settled.
     */
    public List<Orphan> orphans(EntityManager em, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT a.id, a.status FROM cyclium_bulk_actions a WHERE (a.lease_until IS NULL"
                + " OR a.lease_until < ");
        time.now(sql).sql(") AND (a.status = ").value(RUNNING).sql(" OR (a.status = ").value(CANCELED)
                .sql(" AND EXISTS (SELECT 1 FROM cyclium_bulk_items i WHERE i.action_id = a.id AND i.result = ")
                .value(BulkItemResult.WORKING.wire()).sql("))) ORDER BY a.created_at, a.id");
        List<?> rows = sql.query(em).setMaxResults(limit).getResultList();
        List<Orphan> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new Orphan((String) c[0], CANCELED.equals(c[1])));
        }
        return out;
    }

    /** One action with its counts, if it exists. */
    public Optional<BulkActionView> find(EntityManager em, String id) {
        return read(em, new NativeSql().sql(SELECT + " WHERE id = ").value(id), 1).stream().findFirst();
    }

    /** The newest actions first, {@code limit} at most. */
    public List<BulkActionView> newest(EntityManager em, int limit) {
        return read(em, new NativeSql().sql(SELECT + " ORDER BY created_at DESC, id DESC"), limit);
    }

    /** The items of an action after item {@code afterItemNo}, in order, optionally of one result. */
    public List<BulkItemView> items(EntityManager em, String id, int afterItemNo, BulkItemResult result, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT item_no, episode_id, result, reason, finished_at FROM cyclium_bulk_items"
                + " WHERE action_id = ").value(id).sql(" AND item_no > ").value(afterItemNo);
        if (result != null) {
            sql.sql(" AND result = ").value(result.wire());
        }
        List<?> rows = sql.sql(" ORDER BY item_no").query(em).setMaxResults(limit).getResultList();
        List<BulkItemView> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new BulkItemView(((Number) c[0]).intValue(), (String) c[1], (String) c[2], NativeSql.text(c[3]),
                    utc(c[4])));
        }
        return out;
    }

    private static final String SELECT = "SELECT id, action, filter_json, status, total, created_by, created_at, finished_at,"
            + " claimed_by FROM cyclium_bulk_actions";

    private static List<BulkActionView> read(EntityManager em, NativeSql sql, int limit) {
        List<?> rows = sql.query(em).setMaxResults(limit).getResultList();
        if (rows.isEmpty()) {
            return List.of();
        }
        List<String> ids = rows.stream().map(r -> (String) ((Object[]) r)[0]).toList();
        Map<String, Map<String, Long>> counts = new HashMap<>();
        List<?> grouped = new NativeSql().sql("SELECT action_id, result, COUNT(*) FROM cyclium_bulk_items WHERE ")
                .in("action_id", ids).sql(" GROUP BY action_id, result").query(em).getResultList();
        for (Object g : grouped) {
            Object[] c = (Object[]) g;
            counts.computeIfAbsent((String) c[0], k -> new HashMap<>()).put((String) c[1], ((Number) c[2]).longValue());
        }
        List<BulkActionView> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            Map<String, Long> n = counts.getOrDefault((String) c[0], Map.of());
            out.add(new BulkActionView((String) c[0], (String) c[1], BulkFilters.fromJson(NativeSql.text(c[2])), (String) c[3],
                    ((Number) c[4]).intValue(),
                    n.getOrDefault(BulkItemResult.PENDING.wire(), 0L) + n.getOrDefault(BulkItemResult.WORKING.wire(), 0L),
                    n.getOrDefault(BulkItemResult.DONE.wire(), 0L), n.getOrDefault(BulkItemResult.SKIPPED.wire(), 0L),
                    n.getOrDefault(BulkItemResult.FAILED.wire(), 0L), (String) c[5], DbClock.toLocalDateTime(c[6]),
                    utc(c[7]), (String) c[8]));
        }
        return out;
    }

    static String shorten(String s, int max) {
        return s.length() > max ? s.substring(0, max - 1) + "…" : s;
    }

    private static LocalDateTime utc(Object raw) {
        return raw == null ? null : DbClock.toLocalDateTime(raw);
    }
}
