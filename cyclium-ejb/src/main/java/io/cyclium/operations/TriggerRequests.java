package io.cyclium.operations;

import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/** What the console and the API read about deferred triggers (trigger requests). */
@ApplicationScoped
public class TriggerRequests {

    /** Every status a trigger request can have. */
    public static final Set<String> STATUSES = Set.of("pending", "claimed", "completed", "expired");

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    /** Newest first; {@code status} null for every status. */
    public List<TriggerRequestStore.Request> recent(String status, int limit) {
        TriggerRequestStore store = new TriggerRequestStore(vendor);
        return tx.inNewTransaction(em -> store.recent(em, status, limit));
    }
}
