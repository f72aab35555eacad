package io.cyclium.execution;

import io.cyclium.store.GroupCommit;
import jakarta.persistence.EntityManager;

/**
 * One write's runs, to tell a rerun after an <em>unknown</em> outcome from a first run. A write's
 * transaction can fail after its COMMIT reached the database (the answer was lost with the
 * connection); the group commit and {@link WriteRetry} then run the same work again. Without this
 * the rerun meets its own rows — a journal step "taken by another owner", a finish that finds the
 * episode no longer running — and stands down from an episode it still owns.
 *
 * <p>A run counts as one that may have reached the database when it ran for real, or when a batch
 * recorded it to completion (its statements then went out with the batch). A recording that was
 * refused half-way (the work needs a real read) did not: the real run that follows it is a first run,
 * and pays no extra read. Nor did one whose batch failed before its COMMIT was sent (a count the
 * recording was wrong about, a work that threw): the group commit says so
 * ({@link GroupCommit#runsAfterRollback}) while the work runs again alone.
 */
final class Reruns {

    private volatile boolean reachedBefore;

    /**
     * Called first thing in the work: true when a run before this one may have committed, so the
     * work must first look whether its rows are there. Always false on a recording.
     */
    boolean mayHaveLanded(EntityManager em) {
        if (GroupCommit.recording(em)) {
            return false;
        }
        // a batch that failed before its COMMIT went out rolled back for certain: the recording or
        // run it took landed nowhere, and a row found now is someone else's (or an older commit's)
        boolean before = reachedBefore && !GroupCommit.runsAfterRollback();
        reachedBefore = true;
        return before;
    }

    /** Called last thing in the work: a completed recording went out with its batch. */
    void ran(EntityManager em) {
        if (GroupCommit.recording(em)) {
            reachedBefore = true;
        }
    }
}
