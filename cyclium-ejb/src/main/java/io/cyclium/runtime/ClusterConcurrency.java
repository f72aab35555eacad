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
    /**
     * What this node knows of each episode's slots, from its admission until its task exits: the
     * numbers it took ({@link Admitted}), then the slots it holds with them ({@link Holding}), then
     * — its terminal write gave them back — {@link #GIVEN_BACK} until the exit, which then has
     * nothing to do. Only the episode's own task thread moves it past {@link Admitted}.
     */
    private final Map<String, State> episodes = new ConcurrentHashMap<>();

    private sealed interface State permits Admitted, Holding, GivenBack {
    }

    /** The numbers an admission took, in its slots' order: a give-back by number is one row by its primary key. */
    private record Admitted(int[] numbers) implements State {
    }

    /** The slots an episode holds and their numbers, which its terminal write has not given back yet. */
    private record Holding(List<Held> slots) implements State {
    }

    private record GivenBack() implements State {
    }

    private static final GivenBack GIVEN_BACK = new GivenBack();

    /** Admissions never started here (a store that failed after them) leave their entry; past this many they go. */
    private static final int ADMITTED_KEPT = 100_000;

    /** A slot an episode holds, and its number ({@link ConcurrencyStore#NONE}: not known here). */
    private record Held(ConcurrencySlot slot, int number) {
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
        this.tx = tx;
        this.writes = writes;
        this.store = new ConcurrencyStore(vendor);
        this.rates = new RateStore(vendor);
        this.turns = new ConcurrencyTurns(new ConcurrencyWaiters(vendor), node, recheck);
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

    /** All in one transaction shared with other writes; only the first run takes blind (see {@link #admit}). */
    @Override
    public long[] admit(List<Admission> asked) {
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
    public long admitIn(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh) {
        return admit(em, episodeId, slots, limits, fresh, UNRANKED, null);
    }

    /** {@code rank} other than {@link #UNRANKED}: queued work, which says so when it finds a limit full. */
    private long admit(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh, long rank, Set<String> marked) {
        int[] numbers = new int[slots.size()];
        for (int i = 0; i < slots.size(); i++) {
            numbers[i] = store.take(em, slots.get(i), episodeId, node, fresh);
            if (numbers[i] == ConcurrencyStore.NONE) {
                giveBack(em, episodeId, slots, numbers, i); // all or none
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
                giveBack(em, episodeId, slots, numbers, slots.size());
                return due;
            }
        }
        if (!slots.isEmpty()) {
            if (episodes.size() > ADMITTED_KEPT) {
                // their episodes, if they ever start, give back by key instead
                episodes.values().removeIf(state -> state instanceof Admitted);
            }
            episodes.put(episodeId, new Admitted(numbers));
            if (rank != UNRANKED) {
                turns.admitted(em, slots, marked);
            }
        }
        return ADMITTED;
    }

    /** Gives back the first {@code taken} of {@code slots}, which this admission took as {@code numbers}. */
    private void giveBack(EntityManager em, String episodeId, List<ConcurrencySlot> slots, int[] numbers, int taken) {
        for (int i = 0; i < taken; i++) {
            store.release(em, slots.get(i), numbers[i], episodeId);
        }
    }

    @Override
    public void holding(String episodeId, List<ConcurrencySlot> slots) {
        State admitted = episodes.remove(episodeId);
        if (!slots.isEmpty()) {
            int[] numbers = admitted instanceof Admitted a && a.numbers().length == slots.size() ? a.numbers() : null;
            List<Held> slotsHeld = new java.util.ArrayList<>(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                slotsHeld.add(new Held(slots.get(i), numbers != null ? numbers[i] : ConcurrencyStore.NONE));
            }
            episodes.put(episodeId, new Holding(slotsHeld));
        }
    }

    /** Gives the slots back unless the episode's terminal write already did. */
    @Override
    public void release(String episodeId) {
        State state = episodes.remove(episodeId);
        if (state instanceof Holding h) {
            tx.run(em -> releaseEach(em, episodeId, h.slots()));
            given(h.slots());
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

    private void releaseEach(EntityManager em, String episodeId, List<Held> slots) {
        for (Held h : slots) {
            store.release(em, h.slot(), h.number(), episodeId);
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
            store.given(h.slot(), h.number());
        }
    }
}
