package io.cyclium.finding;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Read side for findings: returns views, never entities. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class FindingQueries {

    public static final int MAX_PAGE = 500;

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    /** Active findings of every env, most recently updated first. */
    public List<FindingView> active(int limit) {
        return em.createQuery("SELECT f FROM FindingEntity f WHERE f.status = 'active' ORDER BY f.updatedAt DESC, f.id",
                        FindingEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .getResultList().stream().map(FindingView::of).toList();
    }

    /** Active findings per severity, every {@link Severity} listed (0 when none). */
    public Map<String, Long> activeCountsBySeverity() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Severity s : Severity.values()) {
            counts.put(s.wireName(), 0L);
        }
        for (Object[] row : em.createQuery("SELECT f.severity, COUNT(f) FROM FindingEntity f WHERE f.status = 'active'"
                + " GROUP BY f.severity", Object[].class).getResultList()) {
            counts.put((String) row[0], (Long) row[1]);
        }
        return counts;
    }
}
