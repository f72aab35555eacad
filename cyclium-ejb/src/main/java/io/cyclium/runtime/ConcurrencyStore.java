package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The SQL of {@code cyclium_concurrency_slots}, and the one guard of a cluster-wide concurrency
 * limit: an episode holds a slot by having its id on a row numbered below the limit, and the
 * primary key (scope, key, slot number) gives each number one row. {@link #take} puts the episode
 * on a free row ({@code UPDATE ... WHERE episode_id IS NULL}) or INSERTs a number that has no row
 * yet, so at most {@code limit} episodes of a key hold a slot at once, on any isolation level and
 * however many nodes admit at the same moment: the read only chooses which number to try, and a
 * number another node took meanwhile makes the statement change nothing (0 rows: that node won,
 * normal). Runs in the caller's transaction.
 *
 * <p>Rows stay; they are not deleted when their episode ends. Giving a slot back empties its
 * {@code episode_id} in place: an INSERT and a DELETE per slot per episode left PostgreSQL a heap of
 * dead rows on a table of a few dozen live ones, and every statement on it scanned them (the
 * benchmark's top statement: 200-340 µs per DELETE). No index covers {@code episode_id}, so the
 * update of it changes no index (a heap-only update on PostgreSQL, pruned within its page) — the
 * table keeps about as many rows per key as its episodes ever held at once.
 *
 * <p>Which number: one of the free ones <em>at random</em>, never the lowest. Takers of one key at
 * the same moment (twenty threads of one node, or several nodes) read the same free numbers; all
 * trying the lowest, one would win and the others would change nothing and wait for a later pass — a
 * limit that does not bind would serialise its takers. At random they rarely meet; one that does
 * tries another free number in the same transaction. A fresh episode under a large limit
 * ({@link #BLIND_FROM} or more) takes a number before reading anything: one this node gave back
 * (it remembers them per key, so its takers rarely meet) or, when it has none, a random new one.
 * While the key is far from its limit that is the only statement.
 *
 * <p>A slot belongs to its episode, not to a node: it is emptied when the run ends ({@link #release});
 * an episode recovered on another node after a crash finds its own slot and keeps it
 * ({@link #take} answers its number and names the new holder). A slot whose episode is no longer
 * {@code running} (its node died and the sweep failed it, or the release was lost with the
 * database) is emptied by the next {@link #take} that finds the key at its limit, so a lost
 * release costs a wait, never a slot for ever.
 *
 * <p>Blocks: a node may hold numbers of a key far from its limit in reserve ({@link #BLOCK} on the
 * row, the node as {@code holder}) and lend them to its fresh episodes without a statement
 * ({@link SlotBlocks}). A block's rows count as held like any other: the limit still counts rows,
 * whoever lends them. Blocks take at most half of a limit ({@link #takeBlock}), their node renews
 * {@code taken_at} while it holds them ({@link #confirmBlock}), and a block not renewed for its
 * life (its node died, froze or restarted) is freed like an ended episode's slot.
 */
public final class ConcurrencyStore {

    /** What {@link #take} answers when the episode got no slot. */
    public static final int NONE = -1;

    /** {@code episode_id} of a row a node holds in a block (never an episode's id: those are UUIDs). */
    public static final String BLOCK = "(block)";

    /** Limits from which a fresh episode takes a number blind (see the class comment). */
    static final int BLIND_FROM = 64;

    /** How many free numbers one take tries before it says "another node was faster". */
    private static final int TRIES = 3;

    /** Numbers remembered per key, and keys remembered, at most (a cap, not a tuning knob). */
    private static final int REMEMBERED = 1_024;

    private final DatabaseVendor vendor;
    /** After how long without renewal a block's rows count as abandoned (their node died or froze). */
    private final long blockLifeSeconds;
    /**
     * Per limit, the numbers this node gave back: rows that exist and were free when given back. A
     * hint only — another node may have taken one since (the guarded UPDATE then changes nothing), and
     * a give-back whose transaction rolled back leaves a number that is not free (likewise).
     */
    private final Map<ConcurrencySlotKey, Deque<Integer>> givenBack = new ConcurrentHashMap<>();

    private record ConcurrencySlotKey(String scope, String key) {
        static ConcurrencySlotKey of(ConcurrencySlot slot) {
            return new ConcurrencySlotKey(slot.scope(), slot.key());
        }
    }

    public ConcurrencyStore(DatabaseVendor vendor) {
        this(vendor, SlotBlocks.DEFAULT_LIFE.toSeconds());
    }

    /** {@code blockLifeSeconds}: how long a block's rows stand without their node renewing them. */
    public ConcurrencyStore(DatabaseVendor vendor, long blockLifeSeconds) {
        this.vendor = vendor;
        this.blockLifeSeconds = Math.max(1, blockLifeSeconds);
    }

    /**
     * Takes a slot of {@code slot} for the episode on behalf of {@code holder} (this node): the number
     * the episode holds now (taken now, or already its own), or {@link #NONE} when the key is at its
     * limit or another node took the free number first.
     */
    public int take(EntityManager em, ConcurrencySlot slot, String episodeId, String holder) {
        return take(em, slot, episodeId, holder, false);
    }

    /**
     * {@link #take}; {@code fresh}: the episode has never held a slot (it is being stored in this
     * very transaction), so there is no slot of its own to look for, and under a large limit a
     * number is tried before anything is read.
     */
    public int take(EntityManager em, ConcurrencySlot slot, String episodeId, String holder, boolean fresh) {
        if (fresh && slot.limit() >= BLIND_FROM) {
            Integer known = remembered(slot);
            int number = known != null ? known : ThreadLocalRandom.current().nextInt(slot.limit());
            if (known != null ? occupy(em, slot, number, episodeId, holder) : insert(em, slot, number, episodeId, holder)) {
                return number;
            }
        }
        Map<Integer, String> rows = rows(em, slot);
        if (!fresh && rows.containsValue(episodeId)) {
            new NativeSql().sql("UPDATE cyclium_concurrency_slots SET holder = ").value(holder).sql(" WHERE scope = ")
                    .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).sql(" AND episode_id = ")
                    .value(episodeId).executeUpdate(em);
            return rows.entrySet().stream().filter(e -> episodeId.equals(e.getValue())).findFirst().orElseThrow().getKey();
        }
        if (held(rows) >= slot.limit()) {
            // a fresh episode being stored leaves the clean-up of ended slots to the queue's admission
            // (it waits there now): the range statement's locks deadlocked concurrent storing
            // transactions of one key on MariaDB
            if (fresh || freeEnded(em, slot, vendor, blockLifeSeconds) == 0) {
                return NONE;
            }
            rows = rows(em, slot);
        }
        // a number another taker got first since the read is out: the next try picks among the rest,
        // a number without a row first — takers reading the same few free rows meet on them, while
        // new numbers are drawn from the whole range
        for (int i = 0; i < TRIES; i++) {
            int number = i == 0 ? pick(rows, slot.limit()) : pickNew(rows, slot.limit());
            if (number < 0) {
                return NONE;
            }
            boolean taken = rows.containsKey(number) ? occupy(em, slot, number, episodeId, holder)
                    : insert(em, slot, number, episodeId, holder);
            if (taken) {
                forget(slot, number);
                return number;
            }
            rows.put(number, "");
        }
        return NONE;
    }

    /**
     * Puts the episode on the free row {@code number}; false when it is not free (any more), not
     * there, or — on PostgreSQL — locked by another transaction right now (taking or giving it back).
     *
     * <p>Why not wait for that lock: takers of one key in shared transactions each hold the rows they
     * took until their commit, and two of them that read the same free numbers and then tried them
     * in opposite orders deadlocked (three nodes, a limit of 2: a deadlock every few seconds, each
     * costing PostgreSQL's one-second detection and a rerun of every write of the losing batch). A
     * locked row is passed over like a taken one: the caller tries another number, or the key waits
     * for the next pass. The guard is unchanged: {@code episode_id IS NULL} decides, and the row is
     * locked by this statement before it is changed. MariaDB detects deadlocks at once and keeps the
     * plain statement.
     */
    private boolean occupy(EntityManager em, ConcurrencySlot slot, int number, String episodeId, String holder) {
        NativeSql update = freeRow(new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = ").value(episodeId)
                .sql(", holder = ").value(holder).sql(", taken_at = " + vendor.utcNow()), slot, number);
        if (vendor == DatabaseVendor.POSTGRESQL) {
            freeRow(update.sql(" AND ctid = (SELECT ctid FROM cyclium_concurrency_slots"), slot, number).sql(" FOR UPDATE SKIP LOCKED)");
        }
        return update.executeUpdate(em) == 1;
    }

    /** Appends the condition of row {@code number} of {@code slot}'s key while it is free. */
    private static NativeSql freeRow(NativeSql sql, ConcurrencySlot slot, int number) {
        return sql.sql(" WHERE scope = ").value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key())
                .sql(" AND slot_no = ").value(number).sql(" AND episode_id IS NULL");
    }

    /**
     * Adds row {@code number} with the episode on it; false when the number has a row already or —
     * on PostgreSQL — another open transaction is adding it right now.
     *
     * <p>Why not wait there either: {@code ON CONFLICT DO NOTHING} waits for an uncommitted row of
     * the same key, and two batches that each added a new number and then tried the other's
     * deadlocked (seen in the three-node fairness run after the free rows stopped waiting, see
     * {@link #occupy}). An INSERT cannot skip a row it cannot see, so each adder first takes a
     * transaction-scoped advisory lock named by the key and the number, without waiting: the one
     * that holds it is the only one that can be adding the number, and a taker that cannot have it
     * tries another number as if this one were taken. The primary key still decides; a hash shared
     * with another key's number only makes a taker pass over a number it could have had.
     */
    private boolean insert(EntityManager em, ConcurrencySlot slot, int number, String episodeId, String holder) {
        if (vendor == DatabaseVendor.POSTGRESQL) {
            return new NativeSql().sql("INSERT INTO cyclium_concurrency_slots (scope, concurrency_key, slot_no, episode_id, holder,"
                    + " taken_at) SELECT ").value(slot.scope()).sql(", ").value(slot.key()).sql(", ").value(number).sql(", ")
                    .value(episodeId).sql(", ").value(holder).sql(", " + vendor.utcNow())
                    .sql(" WHERE pg_try_advisory_xact_lock(hashtext(").value(slot.scope() + "/" + slot.key()).sql("), ")
                    .value(number).sql(") ON CONFLICT DO NOTHING").executeUpdate(em) == 1;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("scope", slot.scope());
        row.put("concurrency_key", slot.key());
        row.put("slot_no", number);
        row.put("episode_id", episodeId);
        row.put("holder", holder);
        row.put("taken_at", NativeSql.raw(vendor.utcNow()));
        return UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_concurrency_slots", row));
    }

    /**
     * Gives back every slot the episode holds (its run ended); returns how many. Reads the whole
     * table (no index covers {@code episode_id}): for the rare give-back that does not know its keys.
     */
    public int release(EntityManager em, String episodeId) {
        return new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = NULL WHERE episode_id = ")
                .value(episodeId).executeUpdate(em);
    }

    /**
     * Gives back the episode's slot of {@code slot} (its run ended), 1 when it held one: by its
     * number — one row by its primary key — or, {@code number} {@link #NONE} (not known here), by the
     * key's rows.
     */
    public int release(EntityManager em, ConcurrencySlot slot, int number, String episodeId) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = NULL WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key());
        if (number != NONE) {
            sql.sql(" AND slot_no = ").value(number);
        }
        // the slot's row alone, guarded by the episode holding it
        return sql.sql(" AND episode_id = ").value(episodeId).independent().executeUpdate(em);
    }

    /**
     * Remembers slot {@code number} of {@code slot} as given back, for this node's next blind take of
     * the key: call it once the give-back committed (a number remembered before its commit could send
     * a taker to wait on the giver's row lock, and two such crosswise deadlock).
     */
    public void given(ConcurrencySlot slot, int number) {
        if (number >= 0 && slot.limit() >= BLIND_FROM) {
            remember(slot, number);
        }
    }

    /**
     * Deletes free rows taken last more than {@code seconds} ago: keys no episode used for that long
     * (a tenant gone quiet) leave no rows behind. A taker that read such a row just before finds it
     * gone (its UPDATE changes nothing) and tries another number. Returns how many.
     */
    public int forgetIdle(EntityManager em, long seconds) {
        return new NativeSql().sql("DELETE FROM cyclium_concurrency_slots WHERE episode_id IS NULL AND taken_at < ")
                .around(-seconds, vendor::utcNowPlusSeconds).executeUpdate(em);
    }

    /** Slots in use of ({@code scope}, {@code key}) now: what "at limit 2/2" counts. */
    public int inUse(EntityManager em, String scope, String key) {
        return ((Number) new NativeSql().sql("SELECT COUNT(*) FROM cyclium_concurrency_slots WHERE scope = ").value(scope)
                .sql(" AND concurrency_key = ").value(key).sql(" AND episode_id IS NOT NULL").query(em).getSingleResult())
                .intValue();
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

    /** The key's rows: number → holding episode ({@code null}: a free row). */
    private static Map<Integer, String> rows(EntityManager em, ConcurrencySlot slot) {
        List<?> rows = new NativeSql().sql("SELECT slot_no, episode_id FROM cyclium_concurrency_slots WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).query(em).getResultList();
        Map<Integer, String> read = new HashMap<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            read.put(((Number) c[0]).intValue(), (String) c[1]);
        }
        return read;
    }

    private static long held(Map<Integer, String> rows) {
        return rows.values().stream().filter(Objects::nonNull).count();
    }

    /**
     * A number to try: a free row below the limit, at random, when there is one (the table keeps as
     * many rows as the key ever needed at once); otherwise a number without a row.
     */
    static int pick(Map<Integer, String> rows, int limit) {
        List<Integer> free = new ArrayList<>();
        for (Map.Entry<Integer, String> e : rows.entrySet()) {
            if (e.getValue() == null && e.getKey() < limit) {
                free.add(e.getKey());
            }
        }
        if (!free.isEmpty()) {
            return free.get(ThreadLocalRandom.current().nextInt(free.size()));
        }
        return randomFree(rows.keySet(), limit);
    }

    /** A number without a row when there is one below the limit, else {@link #pick}. */
    static int pickNew(Map<Integer, String> rows, int limit) {
        int number = randomFree(rows.keySet(), limit);
        return number >= 0 ? number : pick(rows, limit);
    }

    private Integer remembered(ConcurrencySlot slot) {
        Deque<Integer> numbers = givenBack.get(ConcurrencySlotKey.of(slot));
        while (numbers != null) {
            Integer n = numbers.pollFirst();
            if (n == null || n < slot.limit()) {
                return n;
            }
        }
        return null;
    }

    private void remember(ConcurrencySlot slot, int number) {
        if (givenBack.size() >= REMEMBERED) {
            givenBack.clear(); // keys come and go; a hint lost costs a read
        }
        Deque<Integer> numbers = givenBack.computeIfAbsent(ConcurrencySlotKey.of(slot), k -> new ConcurrentLinkedDeque<>());
        if (numbers.size() < REMEMBERED) {
            numbers.addLast(number);
        }
    }

    private void forget(ConcurrencySlot slot, int number) {
        Deque<Integer> numbers = givenBack.get(ConcurrencySlotKey.of(slot));
        if (numbers != null) {
            numbers.remove(number);
        }
    }

    /** One of the numbers below {@code limit} not in {@code used}, each as likely; -1 when there is none. */
    static int randomFree(Set<Integer> used, int limit) {
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

    /**
     * Empties the key's slots whose episode is no longer running (or gone), and blocks their node
     * stopped renewing; returns how many.
     */
    private static int freeEnded(EntityManager em, ConcurrencySlot slot, DatabaseVendor vendor, long blockLifeSeconds) {
        return new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = NULL WHERE scope = ").value(slot.scope())
                .sql(" AND concurrency_key = ").value(slot.key()).sql(" AND episode_id IS NOT NULL")
                .sql(" AND ((episode_id <> ").value(BLOCK)
                .sql(" AND NOT EXISTS (SELECT 1 FROM cyclium_episodes e WHERE e.id = cyclium_concurrency_slots.episode_id"
                        + " AND e.status = 'running')) OR (episode_id = ").value(BLOCK).sql(" AND taken_at < ")
                .around(-blockLifeSeconds, vendor::utcNowPlusSeconds).sql("))").executeUpdate(em);
    }

    // ---- blocks (SlotBlocks' statements) ---------------------------------------------------------

    /**
     * Takes up to {@code count} numbers of {@code slot} into {@code holder}'s block, as long as the
     * key's held rows stay within half its limit (a block is for a key far from its limit: near it,
     * every episode takes its own slot and queues in order); returns the numbers taken. Each is the
     * same guard as an episode's take (a free row, or a number without one), tried in ascending
     * order so two nodes' blocks of one key lock rows in the same order.
     */
    public List<Integer> takeBlock(EntityManager em, ConcurrencySlot slot, int count, String holder) {
        Map<Integer, String> rows = rows(em, slot);
        int want = (int) Math.min(count, slot.limit() / 2 - held(rows));
        List<Integer> numbers = new ArrayList<>();
        Set<Integer> tried = new HashSet<>(rows.keySet());
        List<Integer> free = new ArrayList<>();
        rows.forEach((n, episode) -> {
            if (episode == null && n < slot.limit()) {
                free.add(n);
            }
        });
        Collections.shuffle(free, ThreadLocalRandom.current());
        for (int i = 0; i < want; i++) {
            int n = i < free.size() ? free.get(i) : randomFree(tried, slot.limit());
            if (n < 0) {
                break;
            }
            tried.add(n);
            numbers.add(n);
        }
        Collections.sort(numbers);
        List<Integer> taken = new ArrayList<>();
        for (int n : numbers) {
            if (rows.containsKey(n) ? occupy(em, slot, n, BLOCK, holder) : insert(em, slot, n, BLOCK, holder)) {
                taken.add(n);
            }
        }
        return taken;
    }

    /** Renews {@code holder}'s block of {@code slot} (its rows' {@code taken_at}); returns how many rows it still has. */
    public int confirmBlock(EntityManager em, ConcurrencySlot slot, String holder) {
        return new NativeSql().sql("UPDATE cyclium_concurrency_slots SET taken_at = " + vendor.utcNow() + " WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).sql(" AND holder = ").value(holder)
                .sql(" AND episode_id = ").value(BLOCK).executeUpdate(em);
    }

    /** The numbers of {@code holder}'s block of {@code slot} as stored. */
    public Set<Integer> blockNumbers(EntityManager em, ConcurrencySlot slot, String holder) {
        Set<Integer> numbers = new HashSet<>();
        for (Object n : new NativeSql().sql("SELECT slot_no FROM cyclium_concurrency_slots WHERE scope = ").value(slot.scope())
                .sql(" AND concurrency_key = ").value(slot.key()).sql(" AND holder = ").value(holder)
                .sql(" AND episode_id = ").value(BLOCK).query(em).getResultList()) {
            numbers.add(((Number) n).intValue());
        }
        return numbers;
    }

    /** Frees {@code numbers} of {@code holder}'s block of {@code slot}; returns how many. */
    public int giveBackBlock(EntityManager em, ConcurrencySlot slot, Collection<Integer> numbers, String holder) {
        if (numbers.isEmpty()) {
            return 0;
        }
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = NULL WHERE scope = ")
                .value(slot.scope()).sql(" AND concurrency_key = ").value(slot.key()).sql(" AND holder = ").value(holder)
                .sql(" AND episode_id = ").value(BLOCK).sql(" AND slot_no IN (");
        String comma = "";
        for (int n : numbers) {
            sql.sql(comma).value(n);
            comma = ", ";
        }
        return sql.sql(")").executeUpdate(em);
    }

    /** Frees every block {@code holder} has (an earlier life's, at this one's start); returns how many rows. */
    public int giveBackBlocks(EntityManager em, String holder) {
        return new NativeSql().sql("UPDATE cyclium_concurrency_slots SET episode_id = NULL WHERE holder = ").value(holder)
                .sql(" AND episode_id = ").value(BLOCK).executeUpdate(em);
    }
}
