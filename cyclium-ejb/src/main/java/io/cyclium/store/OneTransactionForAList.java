package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A list's writes in one transaction of their own — recorded as JDBC batches where the group commit
 * can ({@link GroupCommit#inRecordedTransaction}), else statement by statement — and the one case in
 * which the list runs a second time: its transaction got as far as the commit and then failed for
 * the infrastructure (the connection broke while COMMIT was under way, the answer never came).
 *
 * <p>Then nobody knows whether the list is stored. Answering "none of it was" would be wrong when
 * the COMMIT went through; answering "stored" would be wrong when it did not. Running the list
 * again tells: what the first commit stored is there, and its inserts meet their own keys and
 * answer duplicate (stored, by the first run); what it did not store is stored now. The work must
 * therefore be safe to run twice, as every group-commit work is. An episode stored by the lost
 * commit starts late — its first lease was settled as not won, so it waits for the sweep like any
 * row no task holds — but it is stored and answered so, never refused.
 *
 * <p>A failure before the work finished (a statement refused, the database unreachable from the
 * start) rolled everything back: nothing is stored and it is thrown as it is.
 */
public final class OneTransactionForAList {

    private static final Logger LOG = Logger.getLogger(OneTransactionForAList.class.getName());

    private OneTransactionForAList() {
    }

    /**
     * Runs {@code work} as described; {@code reran} is told each time the list runs a second time
     * (a recorded batch that met a taken key, or a commit whose outcome is unknown).
     */
    public static <T> T run(Tx tx, GroupCommit writes, Function<EntityManager, T> work, Runnable reran) {
        // set when the work returned in the current attempt: a failure after that was in the
        // batches sent at its end or in the commit, where the outcome may be unknown
        AtomicBoolean finishedWork = new AtomicBoolean();
        Function<EntityManager, T> marked = em -> {
            finishedWork.set(false);
            T result = work.apply(em);
            finishedWork.set(true);
            return result;
        };
        try {
            return once(tx, writes, marked, reran);
        } catch (RuntimeException e) {
            if (!finishedWork.get() || !WriteFailures.retryable(e)) {
                throw e;
            }
            LOG.log(Level.WARNING, "A list's transaction failed at its commit; whether it is stored is unknown, so it"
                    + " runs once more, where what is stored answers as duplicates", e);
            reran.run();
            return tx.inNewTransaction(marked);
        }
    }

    private static <T> T once(Tx tx, GroupCommit writes, Function<EntityManager, T> work, Runnable reran) {
        if (writes == null) {
            return tx.inNewTransaction(work);
        }
        Optional<T> batched = writes.inRecordedTransaction(work);
        if (batched.isPresent()) {
            return batched.get();
        }
        // a recorded write changed other than one row: the whole list rolled back; run it the ordinary way
        reran.run();
        return tx.inNewTransaction(work);
    }
}
