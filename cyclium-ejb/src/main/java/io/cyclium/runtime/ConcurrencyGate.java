package io.cyclium.runtime;

import java.util.List;

/**
 * Where an actor's queue asks whether an episode under a cluster-wide limit may start: the
 * database ({@link ClusterConcurrency}) in the container. Called only for episodes of an actor or
 * expectation that declares a limit; an actor without one never calls it.
 */
public interface ConcurrencyGate {

    /** No limit anywhere: everything may start, nothing is stored. */
    ConcurrencyGate NONE = new ConcurrencyGate() {
        @Override
        public boolean take(String episodeId, List<ConcurrencySlot> slots) {
            return true;
        }

        @Override
        public long admit(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> rates, boolean neverHeld) {
            return ADMITTED;
        }

        @Override
        public long admitIn(jakarta.persistence.EntityManager em, String episodeId, List<ConcurrencySlot> slots,
                List<RateLimit> rates, boolean fresh) {
            return ADMITTED;
        }

        @Override
        public void release(String episodeId) {
        }

        @Override
        public StoredKeys keysOf(String episodeId) {
            return StoredKeys.NONE;
        }
    };

    /**
     * Takes a slot of every limit in {@code slots} for the episode, all or none, in one transaction;
     * true when it holds all of them now (false: one is at its limit, or another node was faster).
     */
    boolean take(String episodeId, List<ConcurrencySlot> slots);

    /** {@link #admit}: the episode may start now. */
    long ADMITTED = 0;

    /** {@link #admit}: a concurrency limit is full (or another node was faster); tried again on a later pass. */
    long LIMIT_FULL = -1;

    /**
     * Takes a slot of every concurrency limit and a token of every rate limit for the episode, all or
     * none, in one transaction: {@link #ADMITTED}, {@link #LIMIT_FULL}, or (positive) the
     * milliseconds until a rate limit has its next token. {@code neverHeld}: a fresh episode that
     * waited in the queue, which cannot hold a slot of its own yet (nothing to look for first).
     */
    long admit(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> rates, boolean neverHeld);

    /**
     * One episode's part of {@link #admit(List)}. {@code rank}: the queued entry's place against
     * other nodes' waiting work of the same limits (its priority aged by its wait: higher goes first;
     * {@link #UNRANKED}: it never gives way).
     */
    record Admission(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> rates, boolean neverHeld, long rank) {

        public Admission(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> rates, boolean neverHeld) {
            this(episodeId, slots, rates, neverHeld, UNRANKED);
        }
    }

    /** An {@link Admission} that never gives way to other nodes' waiting work. */
    long UNRANKED = Long.MIN_VALUE;

    /**
     * {@link #admit} for several episodes in one transaction, each all or none: the answers in
     * their order. By default one after the other.
     */
    default long[] admit(List<Admission> asked) {
        long[] answers = new long[asked.size()];
        for (int i = 0; i < asked.size(); i++) {
            Admission a = asked.get(i);
            answers[i] = admit(a.episodeId(), a.slots(), a.rates(), a.neverHeld());
        }
        return answers;
    }

    /**
     * {@link #admit} in the caller's transaction: the one that stores a fresh episode
     * ({@code fresh}: it never held a slot), or runs a store again whose answer was lost.
     */
    long admitIn(jakarta.persistence.EntityManager em, String episodeId, List<ConcurrencySlot> slots, List<RateLimit> rates,
            boolean fresh);

    /**
     * The admitted episode now runs here holding {@code slots}: its terminal write gives them back in
     * its transaction (then {@link #release} has nothing left to do). Nothing by default.
     */
    default void holding(String episodeId, List<ConcurrencySlot> slots) {
    }

    /**
     * Gives back the slots the episode holds (its run ended, here, whatever the outcome), unless its
     * terminal write already did.
     */
    void release(String episodeId);

    /**
     * Whether a fresh episode under {@code slots} and {@code rates} would now be admitted without a
     * transaction (a hint: the admission itself decides). Its queue then runs the admission in the
     * thread that queued it instead of handing it to another. False by default.
     */
    default boolean admitsInMemory(List<ConcurrencySlot> slots, List<RateLimit> rates) {
        return false;
    }

    /**
     * The transaction that admitted the fresh episode in {@link #admitIn} did not store it (rolled
     * back, or a duplicate): what the admission holds outside the database goes back. Nothing by default.
     */
    default void notStored(String episodeId) {
    }

    /**
     * What a restart (which carries only the episode's id) takes again: the concurrency key stored
     * with the episode (null: none) and its workflow step's own limit (null: none).
     */
    StoredKeys keysOf(String episodeId);

    /** An episode's stored concurrency key and its workflow step's own limit, each null when none. */
    record StoredKeys(String key, ConcurrencySlot stepSlot) {
        static final StoredKeys NONE = new StoredKeys(null, null);
    }
}
