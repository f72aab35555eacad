package io.cyclium.runtime;

import io.cyclium.execution.HeldSlots;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
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
    private final String node;
    /** Episodes running here with the slots (and their numbers) their terminal write has not given back yet. */
    private final Map<String, List<Held>> held = new ConcurrentHashMap<>();
    /** Episodes whose terminal write gave their slots back, until their task exits (which then has nothing to do). */
    private final Set<String> releasedInCommit = ConcurrentHashMap.newKeySet();
    /**
     * The numbers the last admission of an episode took, in its slots' order, until {@link #holding}
     * pairs them with the slots: a give-back by number is one row by its primary key.
     */
    private final Map<String, int[]> admittedNumbers = new ConcurrentHashMap<>();

    /** A slot an episode holds, and its number ({@link ConcurrencyStore#NONE}: not known here). */
    private record Held(ConcurrencySlot slot, int number) {
    }

    public ClusterConcurrency(Tx tx, DatabaseVendor vendor, String node) {
        this(tx, tx, vendor, node);
    }

    /** {@code writes}: the transactions admissions share with other writes (the node's group commit). */
    public ClusterConcurrency(Tx tx, Tx writes, DatabaseVendor vendor, String node) {
        this.tx = tx;
        this.writes = writes;
        this.store = new ConcurrencyStore(vendor);
        this.rates = new RateStore(vendor);
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
        return writes.inGroupTransaction(em -> admit(em, episodeId, slots, limits, neverHeld && runs.getAndIncrement() == 0));
    }

    /** All in one transaction shared with other writes; only the first run takes blind (see {@link #admit}). */
    @Override
    public long[] admit(List<Admission> asked) {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        return writes.inGroupTransaction(em -> {
            boolean first = runs.getAndIncrement() == 0;
            long[] answers = new long[asked.size()];
            for (int i = 0; i < asked.size(); i++) {
                Admission a = asked.get(i);
                answers[i] = admit(em, a.episodeId(), a.slots(), a.rates(), a.neverHeld() && first);
            }
            return answers;
        });
    }

    @Override
    public long admitIn(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh) {
        return admit(em, episodeId, slots, limits, fresh);
    }

    private long admit(EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits,
            boolean fresh) {
        int[] numbers = new int[slots.size()];
        for (int i = 0; i < slots.size(); i++) {
            numbers[i] = store.take(em, slots.get(i), episodeId, node, fresh);
            if (numbers[i] == ConcurrencyStore.NONE) {
                giveBack(em, episodeId, slots, numbers, i); // all or none
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
            if (admittedNumbers.size() > 100_000) {
                admittedNumbers.clear(); // admissions never started here (a failed store): a give-back by key does
            }
            admittedNumbers.put(episodeId, numbers);
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
        int[] numbers = admittedNumbers.remove(episodeId);
        if (!slots.isEmpty()) {
            List<Held> slotsHeld = new java.util.ArrayList<>(slots.size());
            boolean known = numbers != null && numbers.length == slots.size();
            for (int i = 0; i < slots.size(); i++) {
                slotsHeld.add(new Held(slots.get(i), known ? numbers[i] : ConcurrencyStore.NONE));
            }
            held.put(episodeId, slotsHeld);
        }
    }

    /** Gives the slots back unless the episode's terminal write already did. */
    @Override
    public void release(String episodeId) {
        admittedNumbers.remove(episodeId);
        List<Held> slots = held.remove(episodeId);
        if (!releasedInCommit.remove(episodeId)) {
            if (slots == null) {
                tx.run(em -> store.release(em, episodeId));
            } else {
                tx.run(em -> releaseEach(em, episodeId, slots));
                given(slots);
            }
        }
    }

    @Override
    public StoredKeys keysOf(String episodeId) {
        return tx.inNewTransaction(em -> store.keysOf(em, episodeId));
    }

    // ---- HeldSlots: the terminal write's side ----

    @Override
    public boolean holds(String episodeId) {
        return held.containsKey(episodeId);
    }

    /**
     * One UPDATE per slot, each of exactly one row: in a shared batch every statement must change
     * the one row it was recorded to change (a count other than 1 runs the whole batch again alone).
     */
    @Override
    public void releaseIn(EntityManager em, String episodeId) {
        releaseEach(em, episodeId, held.getOrDefault(episodeId, List.of()));
    }

    private void releaseEach(EntityManager em, String episodeId, List<Held> slots) {
        for (Held h : slots) {
            store.release(em, h.slot(), h.number(), episodeId);
        }
    }

    @Override
    public void released(String episodeId) {
        // before the task exits (the same thread wrote it): release() finds the mark
        List<Held> slots = held.remove(episodeId);
        if (slots != null) {
            releasedInCommit.add(episodeId);
            given(slots);
        }
    }

    /** After the give-back committed: its numbers are this node's hints for the next blind takes. */
    private void given(List<Held> slots) {
        for (Held h : slots) {
            store.given(h.slot(), h.number());
        }
    }
}
