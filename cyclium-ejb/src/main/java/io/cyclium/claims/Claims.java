package io.cyclium.claims;

import io.cyclium.node.NodeIdentity;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Work claims for the console and the API: the table, page by page, and the claim statistics,
 * each read in a transaction of its own (the SQL is in {@link ClaimQueries}; every write is in
 * {@link JpaWorkClaims}).
 */
@ApplicationScoped
public class Claims {

    /**
     * Claim statistics. {@code outcomes} are this node's own ({@code node}) since {@code since}:
     * acquired, steal (took over a lapsed or released lease), busy (someone else held it),
     * renew_failed (a lease of ours was found taken), completed, failed, renewed. {@code held} is
     * cluster-wide, read from the table now: claimed rows per owner node, live and lapsed.
     */
    public record Stats(String node, Instant since, Map<String, Long> outcomes, List<ClaimQueries.HeldByNode> held) {
    }

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ClaimGateProducer claims;

    @Inject
    NodeIdentity identity;

    public ClaimQueries.ClaimPage page(ClaimQueries.Filter filter, String cursor, int size) {
        ClaimQueries queries = new ClaimQueries(vendor);
        return tx.inNewTransaction(em -> queries.page(em, filter, cursor, size));
    }

    public Stats stats() {
        ClaimQueries queries = new ClaimQueries(vendor);
        ClaimOutcomeTally tally = claims.outcomes();
        return new Stats(identity.name(), tally.since(), tally.counts(), tx.inNewTransaction(queries::heldByNode));
    }
}
