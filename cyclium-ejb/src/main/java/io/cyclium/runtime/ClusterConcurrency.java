package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import java.util.List;

/**
 * The cluster-wide {@link ConcurrencyGate}: every decision is a {@link ConcurrencyStore} or
 * {@link RateStore} guard in a transaction of its own, committed before the episode starts, so no
 * node counts anything in its memory. Taking several (an expectation's key, its actor's limit, their
 * rate limits) is all or none: what was taken before one that is full is given back in the same
 * transaction.
 */
public final class ClusterConcurrency implements ConcurrencyGate {

    private final Tx tx;
    private final ConcurrencyStore store;
    private final RateStore rates;
    private final String node;

    public ClusterConcurrency(Tx tx, DatabaseVendor vendor, String node) {
        this.tx = tx;
        this.store = new ConcurrencyStore(vendor);
        this.rates = new RateStore(vendor);
        this.node = node;
    }

    @Override
    public boolean take(String episodeId, List<ConcurrencySlot> slots) {
        return admit(episodeId, slots, List.of()) == ADMITTED;
    }

    @Override
    public long admit(String episodeId, List<ConcurrencySlot> slots, List<RateLimit> limits) {
        return tx.inNewTransaction(em -> {
            for (int i = 0; i < slots.size(); i++) {
                if (!store.take(em, slots.get(i), episodeId, node)) {
                    if (i > 0) {
                        store.release(em, episodeId); // all or none
                    }
                    return LIMIT_FULL;
                }
            }
            for (int i = 0; i < limits.size(); i++) {
                long due = rates.take(em, limits.get(i));
                if (due > 0) {
                    // all or none: the tokens and slots taken before this one go back
                    for (int j = 0; j < i; j++) {
                        rates.giveBack(em, limits.get(j));
                    }
                    if (!slots.isEmpty()) {
                        store.release(em, episodeId);
                    }
                    return due;
                }
            }
            return ADMITTED;
        });
    }

    @Override
    public void release(String episodeId) {
        tx.run(em -> store.release(em, episodeId));
    }

    @Override
    public StoredKeys keysOf(String episodeId) {
        return tx.inNewTransaction(em -> store.keysOf(em, episodeId));
    }
}
