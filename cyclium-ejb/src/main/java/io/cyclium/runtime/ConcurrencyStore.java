package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The SQL of {@code cyclium_concurrency_slots}, and the one guard of a cluster-wide concurrency
 * limit: {@link #take} INSERTs a slot number below the limit, and the primary key (scope, key,
 * slot number) lets exactly one episode have each number. So at most {@code limit} episodes of a
 * key hold a slot at once, on any isolation level and however many nodes admit at the same moment:
 * the read only chooses which number to try, and a number another node took meanwhile makes the
 * INSERT add nothing (0 rows: that node won, normal). Runs in the caller's transaction.
 *
 * <p>Which number: one of the free ones <em>at random</em>, never the lowest. Takers of one key at
 * the same moment (twenty threads of one node, or several nodes) read the same free numbers; all
 * trying the lowest, one would win and the others would add nothing and wait for a later pass — a
 * limit that does not bind would serialise its takers. At random they rarely meet; one that does
 * tries another free number in the same transaction. A fresh episode under a large limit
 * ({@link #BLIND_FROM} or more) tries a random number before reading anything: while the key is
 * far from its limit that is the only statement.
 *
 * <p>A slot belongs to its episode, not to a node: it is deleted when the run ends ({@link #release});
 * an episode recovered on another node after a crash finds its own slot and keeps it
 * ({@link #take} answers true and names the new holder). A slot whose episode is no longer
 * {@code running} (its node died and the sweep failed it, or the release was lost with the
 * database) is deleted by the next {@link #take} that finds the key at its limit, so a lost
 * release costs a wait, never a slot for ever.
 */
public final class ConcurrencyStore {

    /** Limits from which a fresh episode tries a random number blind (see the class comment). */
    static final int BLIND_FROM = 64;

    /** How many free numbers one take tries before it says "another node was faster". */
    private static final int TRIES = 3;

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
        return take(em, slot, episodeId, holder, false);
    }

    /**
     * {@link #take}; {@code fresh}: the episode has never held a slot (it is being stored in this
     * very transaction), so there is no slot of its own to look for, and under a large limit a
     * random number is tried before anything is read.
     */
    public boolean take(EntityManager em, ConcurrencySlot slot, String episodeId, String holder, boolean fresh) {
        if (fresh && slot.limit() >= BLIND_FROM
                && insert(em, slot, ThreadLocalRandom.current().nextInt(slot.limit()), episodeId, holder)) {
            return true;
        }
        Map<Integer, String> used = used(em, slot);
        if (!fresh && used.containsValue(episodeId)) {
            new NativeSql().sql("UPDATE cyclium_concurrency_slots SET holder = ").value(holder).sql(" WHERE scope = ")
                    .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).sql(" AND episode_id = ")
                    .value(episodeId).executeUpdate(em);
            return true;
        }
        if (used.size() >= slot.limit()) {
            // a fresh episode being stored leaves the clean-up of ended slots to the queue's admission
            // (it waits there now): the range DELETE's locks deadlocked concurrent storing
            // transactions of one key on MariaDB
            if (fresh || freeEnded(em, slot) == 0) {
                return false;
            }
            used = used(em, slot);
        }
        // a number another taker got first since the read is out: the next try picks among the rest
        for (int i = 0; i < TRIES; i++) {
            int free = randomFree(used.keySet(), slot.limit());
            if (free < 0) {
                return false;
            }
            if (insert(em, slot, free, episodeId, holder)) {
                return true;
            }
            used.put(free, null);
        }
        return false;
    }

    private boolean insert(EntityManager em, ConcurrencySlot slot, int number, String episodeId, String holder) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("scope", slot.scope());
        row.put("concurrency_key", slot.key());
        row.put("slot_no", number);
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

    /** Gives back the episode's slot of {@code slot} (its run ended); 1 when it held one. */
    public int release(EntityManager em, ConcurrencySlot slot, String episodeId) {
        return new NativeSql().sql("DELETE FROM cyclium_concurrency_slots WHERE scope = ").value(slot.scope())
                .sql(" AND concurrency_key = ").value(slot.key()).sql(" AND episode_id = ").value(episodeId).executeUpdate(em);
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

    /** One of the numbers below {@code limit} not in {@code used}, each as likely; -1 when there is none. */
    static int randomFree(java.util.Set<Integer> used, int limit) {
        int free = limit - (int) used.stream().filter(n -> n < limit).count();
        if (free <= 0) {
            return -1;
        }
        if (used.size() < limit / 2) {
            // mostly free: draw until a free one comes (on average under two draws)
            while (true) {
                int n = ThreadLocalRandom.current().nextInt(limit);
                if (!used.contains(n)) {
                    return n;
                }
            }
        }
        int pick = ThreadLocalRandom.current().nextInt(free);
        for (int n = 0; n < limit; n++) {
            if (!used.contains(n) && pick-- == 0) {
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
