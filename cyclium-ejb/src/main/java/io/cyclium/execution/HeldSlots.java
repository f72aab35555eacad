package io.cyclium.execution;

import jakarta.persistence.EntityManager;

/**
 * The episodes running on this node that hold slots of a cluster-wide concurrency limit (the
 * runtime package's, which takes them): an episode's terminal write — finish, end, or the block of
 * a sleep or wait, where it leaves its slot — gives them back in its own transaction, so a limit
 * that never binds costs a statement there and no transaction of its own.
 *
 * <p>Like {@link StepAdvancement}, {@link #releaseIn} runs inside a transaction other tasks'
 * writes may share and may run more than once (nothing of a run that did not commit stands);
 * {@link #released} comes once, after the commit. A run that ends without such a commit (its lease
 * moved on, the database went away, the node drains) leaves the slots held here, and the runtime
 * gives them back in a transaction of its own when the task exits, as before.
 */
public interface HeldSlots {

    /** Whether {@code episodeId}'s terminal write gives slots back (false: it holds none here). */
    boolean holds(String episodeId);

    /** Deletes the episode's slots in {@code em}, the terminal write's transaction. */
    void releaseIn(EntityManager em, String episodeId);

    /** The terminal write that deleted them committed: the task's exit has nothing to give back. */
    void released(String episodeId);

    /** Nobody holds slots (tests, tools, a node without cluster-wide limits). */
    HeldSlots NONE = new HeldSlots() {
        @Override
        public boolean holds(String episodeId) {
            return false;
        }

        @Override
        public void releaseIn(EntityManager em, String episodeId) {
        }

        @Override
        public void released(String episodeId) {
        }
    };
}
