package io.cyclium.runtime;

import io.cyclium.execution.HeldSlots;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
import io.cyclium.config.FlowSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cluster-wide {@link ConcurrencyGate}: every decision is a {@link ConcurrencyStore} or
 * {@link RateStore} guard on the database, so no node counts anything in its memory. Taking several
 * (an expectation's key, its actor's limit, their rate limits) is all or none: what was taken
 * before one that is full is given back in the same transaction.
 *
 * <p>Where: a fresh episode takes them in the transaction that stores it ({@link #admitIn}, the
 * group commit's), a restart or a queued one in a transaction of its own ({@link #admit}). They go
 * back in the episode's terminal write (this is the task environment's {@link HeldSlots}), or — a
 * run that ended without one — in a transaction of its own when its task exits ({@link #release}):
 * each by its number, which the admission remembers until {@link #holding} pairs it with its slot.
 *
 * <p>A fresh episode under a large limit first asks this node's reserve of the key ({@link SlotBlocks}):
 * a number lent from there costs no statement to take or to give back (the terminal write skips it,
 * and {@link #released} lends it again). {@link #keepBlocks} keeps the reserve.
 */
public final class ClusterConcurrency implements ConcurrencyGate, HeldSlots {

    private final Tx tx;
    /** Where a queued episode's admission runs: the node's group commit (shared with other writes). */
    private final Tx writes;
    private final ConcurrencyStore store;
    private final RateStore rates;
    /** Taking turns with other nodes on a full limit (their waiting work, this node's rows). */
    private final ConcurrencyTurns turns;
    private final String node;
    /** Numbers this node holds in reserve per key and lends to fresh episodes. */
    private final SlotBlocks blocks;
    /**
     * What this node knows of each episode's slots, from its admission until its task exits: the
     * numbers it took ({@link Admitted}), then the slots it holds with them ({@link Holding}), then
     * — its terminal write gave them back — {@link #GIVEN_BACK} until the exit, which then has
     * nothing to do. Only the episode's own task thread moves it past {@link Admitted}.
     */
    private final Map<String, State> episodes = new ConcurrentHashMap<>();

    private sealed interface State permits Admitted, Holding, GivenBack {
    }

    /**
     * The numbers an admission took, in its slots' order: a give-back by number is one row by its
     * primary key; {@code lent[i]}: number i is lent from this node's block (no row of its own).
     */
    private record Admitted(List<ConcurrencySlot> slots, int[] numbers, boolean[] lent) implements State {
    }

    /** The slots an episode holds and their numbers, which its terminal write has not given back yet. */
    private record Holding(List<Held> slots) implements State {
    }

    private record GivenBack() implements State {
    }

    private static final GivenBack GIVEN_BACK = new GivenBack();

    /** Admissions never started here (a store that failed after them) leave their entry; past this many they go. */
    private static final int ADMITTED_KEPT = 100_000;

    /** A slot an episode holds, its number ({@link ConcurrencyStore#NONE}: not known here), and whether it is lent. */
    private record Held(ConcurrencySlot slot, int number, boolean lent) {
    }

    public ClusterConcurrency(Tx tx, DatabaseVendor vendor, String node) {
        this(tx, tx, vendor, node);
    }

    public ClusterConcurrency(Tx tx, Tx writes, DatabaseVendor vendor, String node) {
        this(tx, writes, vendor, node, FlowSettings.DEFAULTS.recheck());
    }

    /**
     * {@code writes}: the transactions admissions share with other writes (the node's group commit);
     * {@code recheck}: how often the nodes' queues try again what waits for a limit (how fresh a
     * waiter row must be to count, and how often this node reads them).
     */
    public ClusterConcurrency(Tx tx, Tx writes, DatabaseVendor vendor, String node, Duration recheck) {
        this(tx, writes, vendor, node, recheck, SlotBlocks.DEFAULT_LIFE, System::nanoTime);
    }

    /**
     * {@code blockLife}: how long a block of reserved slots stands without renewal (the lease: a node
     * that died gives its blocks up as late as its episodes' slots); {@code nanos}: this node's
     * monotonic clock (a block's age, the turns' read interval).
     */
    public ClusterConcurrency(Tx tx, Tx writes, DatabaseVendor vendor, String node, Duration recheck, Duration blockLife,
            java.util.function.LongSupplier nanos) {
        this.tx = tx;
        this.writes = writes;
        this.store = new ConcurrencyStore(vendor, blockLife.toSeconds());
        this.blocks = new SlotBlocks(store, node, blockLife, nanos);
        this.rates = new RateStore(vendor);
        this.turns = new ConcurrencyTurns(new ConcurrencyWaiters(vendor), node, recheck, nanos);
        this.node = node;
    }

    @Override
    public boolean take(String episodeId, List<ConcurrencySlot> slots) {
        return admit(episodeId, slots, List.of(), false) == ADMITTED;
    }

    /**
     * In a transaction shared with other writes (a failed one runs this again alone). Only its first
     * run may take blind as {@code neverHeld}: a run after one whose commit answer was lost finds the
     * slot that one took, instead of taking a second.
     */
    @Override
    public long admit(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits, boolean neverHeld) {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        return writes.inGroupTransaction(em -> admit(em, episodeId, slots, limits, neverHeld && runs.getAndIncrement() == 0,
                UNRANKED, null));
    }

    /**
     * All in one transaction shared with other writes; only the first run takes blind (see
     * {@link #admit}). Queued work that this node's reserves can admit whole needs no transaction.
     */
    @Override
    public long[] admit(List<Admission> asked) {
        long[] lent = admitLent(asked);
        if (lent != null) {
            return lent;
        }
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        return writes.inGroupTransaction(em -> {
            boolean first = runs.getAndIncrement() == 0;
            List<ConcurrencyWaiters.Waiter> others = turns.others(em, asked);
            Set<String> marked = new HashSet<>();
            long[] answers = new long[asked.size()];
            for (int i = 0; i < asked.size(); i++) {
                Admission a = asked.get(i);
                ConcurrencySlot ahead = turns.givesWayTo(others, a);
                if (ahead != null) {
                    // another node's better-ranked work waits for this limit: its next pass takes the slot
                    turns.waiting(em, ahead, a.rank(), marked);
                    answers[i] = LIMIT_FULL;
                    continue;
                }
                answers[i] = admit(em, a.episodeId(), a.slots(), a.rates(), a.neverHeld() && first, a.rank(), marked);
            }
            return answers;
        });
    }

    @Override
    public boolean admitsInMemory(List<ConcurrencySlot> slots, List<RateLimit> rates) {
        if (slots.isEmpty() || !rates.isEmpty() || turns.othersIfRecent() == null || turns.waitsOn(slots)) {
            return false;
        }
        for (ConcurrencySlot slot : slots) {
            if (!blocks.hasFree(slot)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Every one of {@code asked} admitted on numbers lent from this node's reserves, without a
     * transaction — or null, having lent nothing, when one of them needs the database: it held a slot
     * before (a restart finds its own), has a rate limit, finds no number free, should give way to
     * another node's waiting work, or deletes this node's waiter row; or when the other nodes' waiters
     * are due to be read again. The transaction then decides all of them as if this had not run.
     */
    private long[] admitLent(List<Admission> asked) {
        List<ConcurrencyWaiters.Waiter> others = turns.othersIfRecent();
        if (others == null) {
            return null;
        }
        for (Admission a : asked) {
            if (!a.neverHeld() || !a.rates().isEmpty() || a.slots().isEmpty() || turns.givesWayTo(others, a) != null
                    || turns.waitsOn(a.slots())) {
                return null;
            }
        }
        List<Admitted> admitted = new java.util.ArrayList<>(asked.size());
        for (Admission a : asked) {
            int[] numbers = new int[a.slots().size()];
            boolean[] lent = new boolean[numbers.length];
            for (int i = 0; i < numbers.length; i++) {
                numbers[i] = blocks.lend(a.slots().get(i));
                lent[i] = numbers[i] != ConcurrencyStore.NONE;
                if (!lent[i]) {
                    lendBack(new Admitted(a.slots(), numbers, lent));
                    admitted.forEach(this::lendBack);
                    return null;
                }
            }
            admitted.add(new Admitted(a.slots(), numbers, lent));
        }
        long[] answers = new long[asked.size()];
        for (int i = 0; i < asked.size(); i++) {
            episodes.put(asked.get(i).episodeId(), admitted.get(i));
            answers[i] = ADMITTED;
        }
        return answers;
    }

    @Override
    public long admitIn(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh) {
        return admit(em, episodeId, slots, limits, fresh, UNRANKED, null);
    }

    /** {@code rank} other than {@link #UNRANKED}: queued work, which says so when it finds a limit full. */
    private long admit(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh, long rank, Set<String> marked) {
        if (episodes.get(episodeId) instanceof Admitted earlier && episodes.remove(episodeId, earlier)) {
            // an earlier run of this admission (a shared batch that failed, or whose answer was lost): its
            // lent numbers go back, once — the entry goes with them, so a later give-back cannot return them again
            lendBack(earlier);
        }
        int[] numbers = new int[slots.size()];
        boolean[] lent = new boolean[slots.size()];
        for (int i = 0; i < slots.size(); i++) {
            numbers[i] = fresh ? blocks.lend(slots.get(i)) : ConcurrencyStore.NONE;
            if (numbers[i] != ConcurrencyStore.NONE) {
                lent[i] = true;
                continue;
            }
            numbers[i] = store.take(em, slots.get(i), episodeId, node, fresh);
            if (numbers[i] == ConcurrencyStore.NONE) {
                giveBack(em, episodeId, slots, numbers, lent, i); // all or none
                if (rank != UNRANKED) {
                    turns.waiting(em, slots.get(i), rank, marked);
                }
                return LIMIT_FULL;
            }
        }
        for (int i = 0; i < limits.size(); i++) {
            long due = rates.take(em, limits.get(i));
            if (due > 0) {
                // all or none: the tokens and slots taken before this one go back
                for (int j = 0; j < i; j++) {
                    rates.giveBack(em, limits.get(j));
                }
                giveBack(em, episodeId, slots, numbers, lent, slots.size());
                return due;
            }
        }
        if (!slots.isEmpty()) {
            if (episodes.size() > ADMITTED_KEPT) {
                // their episodes, if they ever start, give back by key instead
                episodes.values().removeIf(state -> state instanceof Admitted);
            }
            episodes.put(episodeId, new Admitted(slots, numbers, lent));
            if (rank != UNRANKED) {
                turns.admitted(em, slots, marked);
            }
        }
        return ADMITTED;
    }

    /** Gives back the first {@code taken} of {@code slots}, which this admission took as {@code numbers}. */
    private void giveBack(EntityManager em, String episodeId, List<ConcurrencySlot> slots, int[] numbers, boolean[] lent,
            int taken) {
        for (int i = 0; i < taken; i++) {
            if (lent[i]) {
                blocks.giveBack(slots.get(i), numbers[i]);
            } else {
                store.release(em, slots.get(i), numbers[i], episodeId);
            }
        }
    }

    /** An admission's lent numbers go back to the blocks (it will not run on them). */
    private void lendBack(Admitted admitted) {
        for (int i = 0; i < admitted.lent().length; i++) {
            if (admitted.lent()[i]) {
                blocks.giveBack(admitted.slots().get(i), admitted.numbers()[i]);
            }
        }
    }

    /**
     * The store that admitted the episode did not commit (or stored nothing): what it lent goes back.
     * Its slot rows went with its transaction.
     */
    @Override
    public void notStored(String episodeId) {
        if (episodes.get(episodeId) instanceof Admitted a && episodes.remove(episodeId, a)) {
            lendBack(a);
        }
    }

    /** One pass over this node's reserves (the node's timer): renew, give back what went unused, take what was missed. */
    public void keepBlocks() {
        blocks.keep(tx);
    }

    /** How often {@link #keepBlocks} should run. */
    public Duration keepBlocksEvery() {
        return blocks.keepEvery();
    }

    /** The node stops: the numbers of its reserves no episode holds go back now (the others when their life ends). */
    public void giveBackBlocks() {
        blocks.giveBackFree(tx);
    }

    /** Numbers of {@code slot}'s reserve here: lent, free. */
    int[] reserve(ConcurrencySlot slot) {
        return blocks.lentAndFree(slot);
    }

    @Override
    public void holding(String episodeId, List<ConcurrencySlot> slots) {
        State admitted = episodes.remove(episodeId);
        if (!slots.isEmpty()) {
            Admitted a = admitted instanceof Admitted known && known.numbers().length == slots.size() ? known : null;
            List<Held> slotsHeld = new java.util.ArrayList<>(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                slotsHeld.add(a != null ? new Held(slots.get(i), a.numbers()[i], a.lent()[i])
                        : new Held(slots.get(i), ConcurrencyStore.NONE, false));
            }
            episodes.put(episodeId, new Holding(slotsHeld));
        }
    }

    /** Gives the slots back unless the episode's terminal write already did. */
    @Override
    public void release(String episodeId) {
        State state = episodes.remove(episodeId);
        if (state instanceof Holding h) {
            if (h.slots().stream().anyMatch(held -> !held.lent())) {
                tx.run(em -> releaseEach(em, episodeId, h.slots()));
            }
            given(h.slots());
        } else if (state instanceof Admitted a) {
            // never paired with its slots: what it lent goes back, and the key's rows name the episode for the rest
            lendBack(a);
            boolean ownRows = false;
            for (boolean lent : a.lent()) {
                ownRows |= !lent;
            }
            if (ownRows) {
                tx.run(em -> store.release(em, episodeId));
            }
        } else if (!(state instanceof GivenBack)) {
            // numbers not known here (never paired with its slots): the key's rows name the episode
            tx.run(em -> store.release(em, episodeId));
        }
    }

    @Override
    public StoredKeys keysOf(String episodeId) {
        return tx.inNewTransaction(em -> store.keysOf(em, episodeId));
    }

    // ---- HeldSlots: the terminal write's side ----

    @Override
    public boolean holds(String episodeId) {
        return episodes.get(episodeId) instanceof Holding;
    }

    /**
     * One UPDATE per slot, each of exactly one row: in a shared batch every statement must change
     * the one row it was recorded to change (a count other than 1 runs the whole batch again alone).
     */
    @Override
    public void releaseIn(EntityManager em, String episodeId) {
        if (episodes.get(episodeId) instanceof Holding h) {
            releaseEach(em, episodeId, h.slots());
        }
    }

    /** Lent numbers need no statement: {@link #given} lends them again once the write committed. */
    private void releaseEach(EntityManager em, String episodeId, List<Held> slots) {
        for (Held h : slots) {
            if (!h.lent()) {
                store.release(em, h.slot(), h.number(), episodeId);
            }
        }
    }

    @Override
    public void released(String episodeId) {
        // before the task exits (the same thread wrote it): release() finds the mark
        if (episodes.get(episodeId) instanceof Holding h) {
            episodes.put(episodeId, GIVEN_BACK);
            given(h.slots());
        }
    }

    /** After the give-back committed: its numbers are this node's hints for the next blind takes. */
    private void given(List<Held> slots) {
        for (Held h : slots) {
            if (h.lent()) {
                blocks.giveBack(h.slot(), h.number());
            } else {
                store.given(h.slot(), h.number());
            }
        }
    }
}
