package io.cyclium.operations;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeStatus;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Read side for episodes: returns views, never entities. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class EpisodeQueries {

    public static final int MAX_PAGE = 500;

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Inject
    DatabaseVendor vendor;

    /** Newest first; the limit is capped at {@link #MAX_PAGE}. */
    public List<EpisodeView> recent(int limit) {
        return em.createQuery("SELECT e FROM EpisodeEntity e ORDER BY e.startedAt DESC, e.id DESC", EpisodeEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .getResultList().stream().map(EpisodeView::of).toList();
    }

    /** Episodes started and failed per minute over the last {@code minutes} (see {@link EpisodeThroughput}). */
    public EpisodeThroughput.Window throughput(int minutes) {
        return new EpisodeThroughput(vendor).lastMinutes(em, minutes);
    }

    /** Every status with its episode count, in {@link EpisodeStatus} order; absent statuses count 0. */
    public Map<String, Long> countsByStatus() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (EpisodeStatus s : EpisodeStatus.values()) {
            counts.put(s.wire(), 0L);
        }
        for (Object[] row : em.createQuery("SELECT e.status, COUNT(e) FROM EpisodeEntity e GROUP BY e.status", Object[].class)
                .getResultList()) {
            counts.put((String) row[0], (Long) row[1]);
        }
        return counts;
    }
}
