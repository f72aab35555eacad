package io.cyclium.episode;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.inject.Inject;
import io.cyclium.schema.SchemaMigrator;
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
    SchemaMigrator schema;

    /** Newest first; the limit is capped at {@link #MAX_PAGE}. */
    public List<EpisodeView> recent(int limit) {
        return em.createQuery("SELECT e FROM EpisodeEntity e ORDER BY e.startedAt DESC, e.id DESC", EpisodeEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .getResultList().stream().map(EpisodeView::of).toList();
    }

    /** Episodes matching the filters (null or blank: any); every value is bound, never spliced. */
    public record Filter(String actorId, String expectationId, String status) {

        public Filter {
            actorId = blankToNull(actorId);
            expectationId = blankToNull(expectationId);
            status = blankToNull(status) == null ? null
                    : EpisodeStatus.parse(status).map(EpisodeStatus::wire).orElse("(unknown)");
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.trim();
        }
    }

    /** One page by offset, newest first (the console's table until it pages by cursor). */
    public List<EpisodeView> page(Filter filter, int first, int size) {
        TypedQuery<EpisodeEntity> q = em.createQuery("SELECT e FROM EpisodeEntity e" + where(filter)
                + " ORDER BY e.startedAt DESC, e.id DESC", EpisodeEntity.class);
        bind(q, filter);
        return q.setFirstResult(Math.max(0, first)).setMaxResults(Math.max(1, Math.min(size, MAX_PAGE)))
                .getResultList().stream().map(EpisodeView::of).toList();
    }

    public long count(Filter filter) {
        TypedQuery<Long> q = em.createQuery("SELECT COUNT(e) FROM EpisodeEntity e" + where(filter), Long.class);
        bind(q, filter);
        return q.getSingleResult();
    }

    /** One keyset page of the newest-first list (see {@link EpisodeListing}); {@code size} is capped there. */
    public EpisodePage page(EpisodeFilter filter, String cursor, int size) {
        return new EpisodeListing(schema.vendor()).page(em, filter, EpisodeCursor.decode(cursor), size);
    }

    /** Episodes started and failed per minute over the last {@code minutes} (see {@link EpisodeThroughput}). */
    public EpisodeThroughput.Window throughput(int minutes) {
        return new EpisodeThroughput(schema.vendor()).lastMinutes(em, minutes);
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

    private static String where(Filter f) {
        return " WHERE 1 = 1" + (f.actorId() == null ? "" : " AND e.actorId = :actor")
                + (f.expectationId() == null ? "" : " AND e.expectationId = :exp")
                + (f.status() == null ? "" : " AND e.status = :status");
    }

    private static void bind(TypedQuery<?> q, Filter f) {
        if (f.actorId() != null) {
            q.setParameter("actor", f.actorId());
        }
        if (f.expectationId() != null) {
            q.setParameter("exp", f.expectationId());
        }
        if (f.status() != null) {
            q.setParameter("status", f.status());
        }
    }
}
