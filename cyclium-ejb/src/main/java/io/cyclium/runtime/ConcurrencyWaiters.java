package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of {@code cyclium_concurrency_waiters} (V24): which nodes have queued work that found a
 * cluster-wide limit full, and the rank of their best such entry. Without it a node gives a freed
 * slot to its own queue first — its pass runs as the slot is given back, another node's only at its
 * next recheck — so one node's backlog of a key could hold back another node's older or more urgent
 * work of the same key for as long as the backlog lasted. With it a node about to admit queued work
 * under a limit that a better-ranked entry of another node waits for leaves the slot free for that
 * node's next pass (at most one recheck interval later).
 *
 * <p>Fairness, not safety: the slot guard is still {@link ConcurrencyStore}'s primary key, and a row
 * read late or missed costs a turn, never a second slot. A row counts while its {@code seen_at}
 * (database clock) is recent: a waiting node refreshes it at every pass that finds the limit full,
 * deletes it once it admitted work under the limit, and the rows of a node that died or stopped
 * waiting stop counting by themselves. Runs in the caller's transaction.
 */
public final class ConcurrencyWaiters {

    private final DatabaseVendor vendor;

    public ConcurrencyWaiters(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /** A node's best queued entry under a limit: higher ranks go first. */
    public record Waiter(String scope, String key, String node, long rank) {
    }

    /** Waiters of nodes other than {@code node} that were seen within the last {@code liveSeconds}. */
    public List<Waiter> others(EntityManager em, String node, long liveSeconds) {
        List<?> rows = new NativeSql().sql("SELECT scope, concurrency_key, node_identity, queue_rank FROM cyclium_concurrency_waiters"
                + " WHERE node_identity <> ").value(node).sql(" AND seen_at > ").around(-liveSeconds, vendor::utcNowPlusSeconds)
                .query(em).getResultList();
        List<Waiter> out = new ArrayList<>(rows.size());
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new Waiter((String) c[0], (String) c[1], (String) c[2], ((Number) c[3]).longValue()));
        }
        return out;
    }

    /** {@code node} waits for {@code slot} with an entry of {@code rank}: its row, written or refreshed. */
    public void waiting(EntityManager em, ConcurrencySlot slot, String node, long rank) {
        if (refresh(em, slot, node, rank) == 1) {
            return;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("scope", slot.scope());
        row.put("concurrency_key", slot.key());
        row.put("node_identity", node);
        row.put("queue_rank", rank);
        row.put("seen_at", NativeSql.raw(vendor.utcNow()));
        if (!UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_concurrency_waiters", row))) {
            refresh(em, slot, node, rank); // the node's other transaction wrote it a moment before
        }
    }

    private int refresh(EntityManager em, ConcurrencySlot slot, String node, long rank) {
        return new NativeSql().sql("UPDATE cyclium_concurrency_waiters SET queue_rank = ").value(rank)
                .sql(", seen_at = " + vendor.utcNow() + " WHERE scope = ").value(slot.scope()).sql(" AND concurrency_key = ")
                .value(slot.key()).sql(" AND node_identity = ").value(node).executeUpdate(em);
    }

    /** {@code node} no longer waits for {@code slot} (it admitted work under it). */
    public void done(EntityManager em, ConcurrencySlot slot, String node) {
        new NativeSql().sql("DELETE FROM cyclium_concurrency_waiters WHERE scope = ").value(slot.scope())
                .sql(" AND concurrency_key = ").value(slot.key()).sql(" AND node_identity = ").value(node).executeUpdate(em);
    }

    /** Deletes the rows not refreshed for {@code seconds} (nodes that stopped waiting, or stopped); how many. */
    public int forgetIdle(EntityManager em, long seconds) {
        return new NativeSql().sql("DELETE FROM cyclium_concurrency_waiters WHERE seen_at < ")
                .around(-seconds, vendor::utcNowPlusSeconds).executeUpdate(em);
    }

    /** The first of {@code slots} that a waiter in {@code others} ranked above {@code rank} waits for; null when none. */
    static ConcurrencySlot ahead(List<Waiter> others, List<ConcurrencySlot> slots, long rank) {
        for (ConcurrencySlot slot : slots) {
            for (Waiter w : others) {
                if (w.rank() > rank && w.scope().equals(slot.scope()) && w.key().equals(slot.key())) {
                    return slot;
                }
            }
        }
        return null;
    }
}
