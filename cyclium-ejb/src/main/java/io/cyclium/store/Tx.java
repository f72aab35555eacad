package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.function.Function;

/**
 * Runs a unit of work in a transaction of its own and commits it before returning. Episode tasks
 * run on managed threads without a transaction; every write they make goes through here, so each
 * journal entry, guard or status change is durable the moment the call returns.
 *
 * <p>In the container this is {@link JtaTx} (REQUIRES_NEW); tests use a resource-local version over
 * a real database, so the repositories are exercised by the same code paths either way.
 */
public interface Tx {

    <T> T inNewTransaction(Function<EntityManager, T> work);

    /**
     * Runs {@code work} in the caller's transaction when there is one — so a trigger fired inside
     * host code's transaction is stored with it or not at all (a transactional outbox) — and in a
     * transaction of its own otherwise. {@code settled} is told, once that transaction has ended,
     * whether it committed; only then may anything that reads the written rows from another
     * transaction (a task on another thread) start.
     */
    default <T> T inCallerTransaction(Function<EntityManager, T> work, java.util.function.Consumer<Boolean> settled) {
        return Settling.telling(settled, () -> inNewTransaction(work));
    }

    /**
     * Runs {@code work} in a transaction that other writes may share (see {@link GroupCommit}),
     * committed when this returns; an exception means nothing of it was applied. A deadlock victim
     * runs again. {@code work} may run more than once: it re-reads what it decides on inside the
     * transaction and resets, when it starts, whatever it captured from an earlier run.
     */
    default <T> T inGroupTransaction(Function<EntityManager, T> work) {
        return DeadlockRetry.inNewTransaction(this, work, attempt -> { });
    }

    /**
     * {@link #inGroupTransaction} for a work that holds the row {@code lockOrder} names while it
     * runs (a workflow instance's id: a step's advance holds its instance). A shared batch runs
     * such works in the order of their names, after the works that name none, so two nodes'
     * batches holding the same rows take them in the same order and never wait for each other in
     * a cycle. Without a batch it is {@link #inGroupTransaction}.
     */
    default <T> T inGroupTransaction(String lockOrder, Function<EntityManager, T> work) {
        return inGroupTransaction(work);
    }

    /** Whether the calling thread is inside a transaction of its own (host code's). */
    default boolean callerHasTransaction() {
        return false;
    }

    /** Whether the transaction {@code em} works in has been marked to roll back. */
    default boolean rollbackOnly(EntityManager em) {
        try {
            return em.getTransaction().isActive() && em.getTransaction().getRollbackOnly();
        } catch (IllegalStateException jta) {
            return false;
        }
    }

    default void run(java.util.function.Consumer<EntityManager> work) {
        inNewTransaction(em -> {
            work.accept(em);
            return null;
        });
    }
}
