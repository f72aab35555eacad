package io.cyclium.store;

/**
 * Thrown by work that found, after it had acted on a row, that a guarded write it depends on lost
 * to another transaction (its UPDATE matched nothing): nothing of the work may stand, and running
 * it again from what is stored decides anew. That is a deadlock victim's advice too, so
 * {@link DeadlockRetry} runs it again the same way ({@link DeadlockVictim#isCause}); the
 * transaction is rolled back because the exception leaves it.
 */
public final class RunAgain extends RuntimeException {

    public RunAgain(String why) {
        super(why, null, false, false);
    }

    static boolean isCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof RunAgain) {
                return true;
            }
        }
        return false;
    }
}
