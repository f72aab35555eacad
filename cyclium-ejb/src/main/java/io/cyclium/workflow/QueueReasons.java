package io.cyclium.workflow;

import io.cyclium.episode.EpisodeEntity;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Map;

/**
 * Why queued episodes have not started (a key at its limit, a rate), by episode id: the reason the
 * episode pages give, for the workflow pages' queued steps. The operations tier, which explains
 * episodes, provides it as a bean; without one the steps show no reason.
 */
public interface QueueReasons {

    /** Reasons for those of {@code episodes} that wait for a limit; the others are left out. */
    Map<String, String> of(EntityManager em, List<EpisodeEntity> episodes);
}
