package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of {@code cyclium_concurrency_slots}, and the one guard of a cluster-wide concurrency
 * limit: {@link #take} INSERTs the lowest slot number below the limit that its read found free,
 * and the primary key (scope, key, slot number) lets exactly one node have each number. So at most
 * {@code limit} episodes of a key hold a slot at once, on any isolation level and however many
 * nodes admit at the same moment: the read only chooses which number to try, and a number another
 * node took meanwhile makes the INSERT add nothing (0 rows: that node won, normal; this episode
 * waits for a later pass). Runs in the caller's transaction.
 *
 * <p>A slot belongs to its episode, not to a node: it is deleted when the run ends ({@link #release});
 * an episode recovered on another node after a crash finds its own slot and keeps it
 * ({@link #take} answers true and names the new holder). A slot whose episode is no longer
 * {@code running} (its node died and the sweep failed it, or the release was lost with the
 * database) is deleted by the next {@link #take} that finds the key at its limit, so a lost
 * release costs a wait, never a slot for ever.
 */
public final class ConcurrencyStore {

    private final DatabaseVendor vendor;

    public ConcurrencyStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    /**
     * Takes a slot of {@code slot} for the episode on behalf of {@code holder} (this node); true when
     * the episode holds one now (taken now, or already its own), false when the key is at its limit
     * or another node took the free number first.
     */
    public boolean take(EntityManager em, ConcurrencySlot slot, String episodeId, String holder) {
        Map<Integer, String> used = used(em, slot);
        if (used.containsValue(episodeId)) {
            new NativeSql().sql("UPDATE cyclium_concurrency_slots SET holder = ").value(holder).sql(" WHERE scope = ")
                    .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).sql(" AND episode_id = ")
                    .value(episodeId).executeUpdate(em);
            return true;
        }
        if (used.size() >= slot.limit()) {
            if (freeEnded(em, slot) == 0) {
                return false;
            }
            used = used(em, slot);
        }
        int free = lowestFree(used, slot.limit());
        if (free < 0) {
            return false;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("scope", slot.scope());
        row.put("concurrency_key", slot.key());
        row.put("slot_no", free);
        row.put("episode_id", episodeId);
        row.put("holder", holder);
        row.put("taken_at", NativeSql.raw(vendor.utcNow()));
        return UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_concurrency_slots", row));
    }

    /** Gives back every slot the episode holds (its run ended); returns how many. */
    public int release(EntityManager em, String episodeId) {
        return new NativeSql().sql("DELETE FROM cyclium_concurrency_slots WHERE episode_id = ").value(episodeId)
                .executeUpdate(em);
    }

    /** Slots in use of ({@code scope}, {@code key}) now: what "at limit 2/2" counts. */
    public int inUse(EntityManager em, String scope, String key) {
        return ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_concurrency_slots WHERE scope = ").value(scope)
                .sql(" AND concurrency_key = ").value(key).query(em).getSingleResult()).intValue();
    }

    /** The episode's stored key and its workflow step's own limit, in one read (a restart that did not carry them). */
    public ConcurrencyGate.StoredKeys keysOf(EntityManager em, String episodeId) {
        List<?> rows = new NativeSql().sql("SELECT concurrency_key, step_key_scope, step_key, step_key_limit FROM cyclium_episodes"
                + " WHERE id = ").value(episodeId).query(em).getResultList();
        if (rows.isEmpty()) {
            return ConcurrencyGate.StoredKeys.NONE;
        }
        Object[] c = (Object[]) rows.get(0);
        ConcurrencySlot step = c[1] == null || c[2] == null || c[3] == null ? null
                : new ConcurrencySlot((String) c[1], (String) c[2], Math.max(1, ((Number) c[3]).intValue()));
        return new ConcurrencyGate.StoredKeys((String) c[0], step);
    }

    private static Map<Integer, String> used(EntityManager em, ConcurrencySlot slot) {
        List<?> rows = new NativeSql().sql("SELECT slot_no, episode_id FROM cyclium_concurrency_slots WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).query(em).getResultList();
        Map<Integer, String> used = new HashMap<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            used.put(((Number) c[0]).intValue(), (String) c[1]);
        }
        return used;
    }

    private static int lowestFree(Map<Integer, String> used, int limit) {
        if (used.size() >= limit) {
            return -1;
        }
        for (int n = 0; n < limit; n++) {
            if (!used.containsKey(n)) {
                return n;
            }
        }
        return -1;
    }

    /** Deletes the key's slots whose episode is no longer running (or gone); returns how many. */
    private static int freeEnded(EntityManager em, ConcurrencySlot slot) {
        return new NativeSql().sql("DELETE FROM cyclium_concurrency_slots WHERE scope = ").value(slot.scope())
                .sql(" AND concurrency_key = ").value(slot.key())
                .sql(" AND NOT EXISTS (SELECT 1 FROM cyclium_episodes e WHERE e.id = cyclium_concurrency_slots.episode_id"
                        + " AND e.status = 'running')").executeUpdate(em);
    }
}
