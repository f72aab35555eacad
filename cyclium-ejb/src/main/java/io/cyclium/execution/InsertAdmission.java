package io.cyclium.execution;

import jakarta.persistence.EntityManager;

/**
 * What a fresh episode under a cluster-wide limit takes in the transaction that stores it (the
 * runtime package's: its concurrency slots and rate tokens), so that a limit that does not bind
 * costs statements in a shared commit and no transaction of its own. Not admitted, the row is
 * stored as waiting in this node's queue instead, in the same transaction.
 *
 * <p>Runs inside a transaction other writes may share, and may run more than once (a failed
 * batch runs each write again alone; nothing of an earlier run stands unless it committed).
 */
@FunctionalInterface
public interface InsertAdmission {

    /**
     * Takes what the episode needs to start now, in {@code em}; false when a limit is full (the
     * episode waits in the queue). {@code again}: an earlier run of this store committed and only
     * its answer was lost — what it took is the episode's own now, and is found, not taken twice.
     */
    boolean admit(EntityManager em, String episodeId, boolean again);
}
