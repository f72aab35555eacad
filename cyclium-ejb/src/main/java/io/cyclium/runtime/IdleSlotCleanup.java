package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Deletes the concurrency-slot rows that are free and were last taken more than {@link #IDLE} ago:
 * slots are given back in place ({@link ConcurrencyStore}), so without this every key ever used (a
 * tenant that came once) would keep its rows for good. Runs at most once per {@link #EVERY} on a
 * node, from the recovery sweep's timer; nodes doing it at once delete the same rows, which costs
 * nothing but the statement. The waiter rows ({@link ConcurrencyWaiters}) of nodes that have not
 * waited for as long go in the same transaction: a node that stopped leaves its rows behind.
 */
public final class IdleSlotCleanup {

    static final Duration IDLE = Duration.ofDays(1);
    static final Duration EVERY = Duration.ofHours(1);

    private final Tx tx;
    private final ConcurrencyStore store;
    private final ConcurrencyWaiters waiters;
    private final Clock clock;
    private Instant next;

    public IdleSlotCleanup(Tx tx, DatabaseVendor vendor, Clock clock) {
        this.tx = tx;
        this.store = new ConcurrencyStore(vendor);
        this.waiters = new ConcurrencyWaiters(vendor);
        this.clock = clock;
        this.next = clock.instant().plus(EVERY);
    }

    /** The DELETEs when they are due on this node: how many rows went (0 when none was due). */
    public synchronized int runIfDue() {
        Instant now = clock.instant();
        if (now.isBefore(next)) {
            return 0;
        }
        next = now.plus(EVERY);
        return tx.inNewTransaction(em -> store.forgetIdle(em, IDLE.toSeconds()) + waiters.forgetIdle(em, IDLE.toSeconds()));
    }
}
