package io.cyclium.output;

import io.cyclium.config.CycliumConfig;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Outputs for the rest of the runtime: routes proposals through the deployed
 * {@link OutputAdapter} beans (one per type; two for one type fail this bean's creation with
 * both named) and retries failed outputs. A caller's transaction is suspended, so adapters never
 * run inside one.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.NOT_SUPPORTED)
public class Outputs {

    private static final Logger LOG = Logger.getLogger(Outputs.class.getName());

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Clock clock;

    @Inject
    Telemetry telemetry;

    @Inject
    CycliumConfig config;

    @Inject
    @Any
    Instance<OutputAdapter> adapterBeans;

    private OutputStore store;
    private final OutputQueries queries = new OutputQueries();
    private OutputRouter router;
    private Map<String, OutputAdapter> adapters;

    @PostConstruct
    void init() {
        List<OutputAdapter> found = new ArrayList<>();
        Map<OutputAdapter, String> names = new IdentityHashMap<>();
        for (Instance.Handle<OutputAdapter> handle : adapterBeans.handles()) {
            OutputAdapter adapter = handle.get();
            found.add(adapter);
            names.put(adapter, handle.getBean().getBeanClass().getName());
        }
        adapters = OutputRouter.byType(found, names::get);
        store = new OutputStore(vendor);
        router = new OutputRouter(tx, store, type -> Optional.ofNullable(adapters.get(type)), clock, telemetry);
        LOG.info(() -> "Cyclium output types: " + adapters.keySet());
    }

    /** Delivers once per dedupe key; explicit keys are scoped to this node's env. */
    public OutputOutcome route(OutputProposal proposal, EpisodeRef episode) {
        return router.route(proposal, episode, config.env());
    }

    /** As {@link #route}; a resumed run also finishes a delivery an earlier run of the episode left proposed. */
    public OutputOutcome route(OutputProposal proposal, EpisodeRef episode, boolean resumedRun) {
        return resumedRun ? router.routeResumed(proposal, episode, config.env()) : router.route(proposal, episode, config.env());
    }

    /** @see OutputRouter#retry(String) */
    public OutputOutcome retry(String outputId) {
        return router.retry(outputId);
    }

    public Optional<OutputView> find(String outputId) {
        return tx.inNewTransaction(em -> store.find(em, outputId));
    }

    public List<OutputView> forEpisode(String episodeId) {
        return tx.inNewTransaction(em -> queries.forEpisode(em, episodeId));
    }

    /** The output types that have an adapter here. */
    public Set<String> types() {
        return adapters.keySet();
    }
}
