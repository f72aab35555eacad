package io.cyclium.operations;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.output.OutputOutcome;
import io.cyclium.output.OutputRetryRefusedException;
import io.cyclium.output.OutputStore;
import io.cyclium.output.OutputView;
import io.cyclium.output.Outputs;
import io.cyclium.problem.Problem;
import io.cyclium.retry.EpisodeRetries;
import io.cyclium.retry.EpisodeRetryService;
import io.cyclium.runtime.RecoverySwept;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Bulk actions wired to the container ({@link BulkActions} does the work): the per-item operations
 * are the single-episode ones — {@link EpisodeService#cancel}, {@link EpisodeService#restart},
 * {@link EpisodeRetryService#retryNow}, {@link Outputs#retry} — so a bulk cancel of one episode is
 * exactly a cancel of it. An accepted action is processed at once on this node's managed executor;
 * after every recovery sweep this node continues any running action whose lease lapsed (its node
 * died or was redeployed), one pass at a time.
 */
@ApplicationScoped
public class BulkCommands {

    private static final Logger LOG = Logger.getLogger(BulkCommands.class.getName());

    /** Orphaned actions one continuation pass takes over. */
    static final int ORPHANS_PER_PASS = 5;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    NodeIdentity identity;

    @Inject
    CycliumConfig config;

    @Inject
    Telemetry telemetry;

    @Inject
    NodeModes modes;

    @Inject
    EpisodeService episodes;

    @Inject
    EpisodeRetryService retries;

    @Inject
    Outputs outputs;

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;

    private BulkActions actions;
    private final AtomicBoolean continuing = new AtomicBoolean();

    @PostConstruct
    void init() {
        actions = new BulkActions(tx, DatabaseTime.of(vendor), this::apply, identity.name(), config.bulkMaxItems(),
                config.bulkLease(), telemetry);
    }

    @PreDestroy
    void stop() {
        actions.stop();
    }

    public BulkPreview preview(BulkKind kind, EpisodeFilter filter) {
        return actions.preview(kind, filter);
    }

    /** Accepts the action (see {@link BulkActions#start}) and starts processing it here. */
    public BulkActionView start(BulkKind kind, EpisodeFilter filter, Long expectedCount, String token, String by) {
        BulkActions.Accepted accepted = actions.start(kind, filter, expectedCount, token, by);
        String id = accepted.view().id();
        try {
            executor.execute(() -> actions.process(id, accepted.fence()));
        } catch (RuntimeException e) {
            // stored and leased to this node: when the lease lapses, the next sweep's continuation takes it
            LOG.warning(() -> "Bulk action " + id + " could not be handed to this node's executor (" + e
                    + "); a node continues it when its lease has lapsed");
        }
        return accepted.view();
    }

    /** Cancels a running action wherever it is processed (see {@link BulkActions#cancel}). */
    public BulkActionView cancel(String id) {
        return actions.cancel(id);
    }

    public BulkActionView find(String id) {
        return actions.find(id).orElseThrow(() -> Problem.notFound("no bulk action " + EpisodeFilter.shorten(id)));
    }

    public List<BulkActionView> newest(int limit) {
        return actions.newest(limit);
    }

    public List<BulkItemView> items(String id, int afterItemNo, BulkItemResult result, int limit) {
        find(id);
        return actions.items(id, afterItemNo, result, limit);
    }

    /** After each recovery sweep: continue, on the executor, the running actions nobody holds. */
    void onSwept(@Observes RecoverySwept swept) {
        if (modes.nodeMode() == NodeMode.DISABLED || !continuing.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    BackgroundPass.run("bulk_continue", LOG, telemetry, () -> "Continuing bulk actions on " + identity.name()
                            + " failed; the next recovery sweep tries again", () -> actions.continueOrphans(ORPHANS_PER_PASS));
                } finally {
                    continuing.set(false);
                }
            });
        } catch (RuntimeException e) {
            continuing.set(false);
            LOG.fine(() -> "Bulk continuation not scheduled on " + identity.name() + ": " + e);
        }
    }

    /** One episode's part: the single-episode operation; its 409/404 refusals become "skipped". */
    String apply(BulkKind kind, String episodeId, String by) {
        return switch (kind) {
            case CANCEL -> {
                EpisodeView v = episodes.cancel(episodeId);
                yield "canceled".equals(v.status()) ? "canceled" : "cancel requested: it stops at its next step";
            }
            case RESTART -> {
                episodes.restart(episodeId, by);
                yield "restarted from its latest checkpoint";
            }
            case RETRY -> {
                Optional<EpisodeRetries.Started> started = retries.retryNow(episodeId);
                yield started.map(s -> "retried as episode " + s.episodeId())
                        .orElse("retry due now: a node that runs its actor starts it");
            }
            case OUTPUT_RETRY -> retryOutputs(episodeId);
        };
    }

    private String retryOutputs(String episodeId) {
        List<OutputView> failed = outputs.forEpisode(episodeId).stream().filter(o -> OutputStore.FAILED.equals(o.status()))
                .toList();
        if (failed.isEmpty()) {
            throw Problem.conflict("episode " + episodeId + " has no failed output");
        }
        int delivered = 0;
        int failedAgain = 0;
        int refused = 0;
        for (OutputView o : failed) {
            try {
                OutputOutcome r = outputs.retry(o.id());
                if (r.kind() == OutputOutcome.Kind.FAILED) {
                    failedAgain++;
                } else {
                    delivered++;
                }
            } catch (OutputRetryRefusedException e) {
                refused++; // another retry took it meanwhile
            }
        }
        String what = "retried " + failed.size() + " failed output" + (failed.size() == 1 ? "" : "s") + ": " + delivered
                + " delivered, " + failedAgain + " failed again" + (refused > 0 ? ", " + refused + " taken by another retry" : "");
        if (failedAgain > 0) {
            throw new BulkActions.ItemFailed(what);
        }
        if (delivered == 0) {
            throw Problem.conflict(what);
        }
        return what;
    }
}
