package io.cyclium.operations;

import io.cyclium.episode.EpisodeEntity;
import io.cyclium.runtime.ActorHost;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.workflow.QueueReasons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The workflow pages' queue reasons, from the limits deployed on this node, as the episode pages give them. */
@ApplicationScoped
public class WorkflowQueueReasons implements QueueReasons {

    @Inject
    DatabaseVendor vendor;

    @Inject
    ActorHost host;

    @Override
    public Map<String, String> of(EntityManager em, List<EpisodeEntity> episodes) {
        Map<String, String> why = new HashMap<>();
        ConcurrencyWaits.deployedOn(vendor, host).views(em, episodes).stream()
                .filter(v -> v.queuedBecause() != null).forEach(v -> why.put(v.id(), v.queuedBecause()));
        return why;
    }
}
