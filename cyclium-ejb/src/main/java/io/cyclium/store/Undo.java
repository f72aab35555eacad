package io.cyclium.store;

/**
 * Thrown by work inside {@link Tx} to roll its transaction back when a later statement finds that
 * an earlier one must not stand (a guarded UPDATE went through, then the journal row that has to go
 * with it was taken by another writer). An application exception: the container rolls back and
 * rethrows it as it is, without logging a system error; the caller catches it and answers.
 */
@jakarta.ejb.ApplicationException(rollback = true)
public final class Undo extends RuntimeException {

    public Undo(String why) {
        super(why, null, false, false);
    }
}
