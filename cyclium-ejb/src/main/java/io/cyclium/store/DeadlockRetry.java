package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Runs a unit of work in a transaction of its own, and again (up to {@link #ATTEMPTS} times in all)
 * when the database rolled it back to break a deadlock. Running the victim again is safe: nothing
 * of it was applied ({@link DeadlockVictim}), so the work must only re-read whatever it decides on
 * inside the transaction — every guarded statement does. Any other failure is thrown at once.
 *
 * <p>MariaDB's InnoDB locks index entries as well as rows, so two transactions that each change
 * one row can still close a cycle through a secondary index (a status UPDATE rewrites its entry in
 * the status indexes while a set-based UPDATE walks them). Such a victim used to end as a failure
 * of whatever it was doing — once, an episode's finishing transaction, after its output had gone
 * out (found by the chaos suite on MariaDB).
 */
public final class DeadlockRetry {

    public static final int ATTEMPTS = 5;

    private DeadlockRetry() {
    }

    /** {@code work} in a new transaction; {@code onRetry} hears the attempt that was a victim before it runs again. */
    public static <T> T inNewTransaction(Tx tx, Function<EntityManager, T> work, IntConsumer onRetry) {
        for (int attempt = 1; ; attempt++) {
            try {
                return tx.inNewTransaction(work);
            } catch (RuntimeException e) {
                if (attempt == ATTEMPTS || !DeadlockVictim.isCause(e)) {
                    throw e;
                }
                onRetry.accept(attempt);
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L * attempt + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
