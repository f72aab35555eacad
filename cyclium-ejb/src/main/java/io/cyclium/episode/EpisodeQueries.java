package io.cyclium.episode;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** Read side for episodes: returns views, never entities. */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class EpisodeQueries {

    public static final int MAX_PAGE = 500;

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    /** Newest first; the limit is capped at {@link #MAX_PAGE}. */
    public List<EpisodeView> recent(int limit) {
        return em.createQuery("SELECT e FROM EpisodeEntity e ORDER BY e.startedAt DESC, e.id DESC", EpisodeEntity.class)
                .setMaxResults(Math.max(1, Math.min(limit, MAX_PAGE)))
                .getResultList().stream().map(EpisodeView::of).toList();
    }
}
