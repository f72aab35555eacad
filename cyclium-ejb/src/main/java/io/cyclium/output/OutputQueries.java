package io.cyclium.output;

import jakarta.persistence.EntityManager;
import java.util.List;

/**
 * Read side of {@code cyclium_outputs} for pages and the API: views, never entities, read inside
 * the caller's transaction (every write is in {@link OutputStore}).
 */
public final class OutputQueries {

    private static final String REFRESH = "eclipselink.refresh";

    /** An episode's outputs, oldest first. */
    public List<OutputView> forEpisode(EntityManager em, String episodeId) {
        return em.createQuery("SELECT o FROM OutputEntity o WHERE o.episodeId = :episode ORDER BY o.createdAt, o.id",
                        OutputEntity.class)
                .setParameter("episode", episodeId).setHint(REFRESH, "true")
                .getResultList().stream().map(OutputView::of).toList();
    }
}
