package io.cyclium.stats;

import io.cyclium.store.DatabaseVendor;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Read side for the dashboard's per-actor figures (the console and {@code GET /stats/actors}). */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class StatsQueries {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Inject
    DatabaseVendor vendor;

    /** Success rate and p50/p95 duration per actor over the last {@code minutes} (see {@link ActorOutcomes}). */
    public ActorOutcomes.Window actorOutcomes(int minutes) {
        return new ActorOutcomes(vendor).lastMinutes(em, minutes);
    }
}
