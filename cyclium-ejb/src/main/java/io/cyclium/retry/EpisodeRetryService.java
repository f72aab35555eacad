package io.cyclium.retry;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.RecoverySwept;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.timing.RetryPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * {@link EpisodeRetries} wired to the container: fed by every terminal episode event on this node,
 * driven by every full node's {@code WorkflowTimer} (one timer for step and episode retries).
 */
@ApplicationScoped
public class EpisodeRetryService {

    private static final Logger LOG = Logger.getLogger(EpisodeRetryService.class.getName());

    /** Retries the timer starts per tick. */
    public static final int BATCH = 100;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    NodeIdentity identity;

    @Inject
    ActorHost host;

    @Inject
    Clock clock;

    @Inject
    NodeModes modes;

    @Inject
    Telemetry telemetry;

    @Inject
    RetryAlarm alarm;

    private volatile EpisodeRetries retries;
    private final EpisodeRetryQueries queries = new EpisodeRetryQueries();

    private EpisodeRetries retries() {
        EpisodeRetries r = retries;
        if (r == null) {
            synchronized (this) {
                if (retries == null) {
                    SecureRandom random = new SecureRandom();
                    retries = new EpisodeRetries(tx, new EpisodeRetryStore(DatabaseTime.of(vendor)), queries, new EpisodeStore(vendor),
                            this::policy, new RuntimeRetryLauncher(host), clock, random::nextDouble, identity.name(),
                            telemetry);
                    retries.onRetryStored(alarm::wake);
                }
                r = retries;
            }
        }
        return r;
    }

    private Optional<RetryPolicy> policy(String actorId, String expectationId) {
        return host.definition(actorId).flatMap(a -> a.expectation(expectationId)).map(ExpectationDefinition::retry);
    }

    /** An episode ended on this node (after its terminal commit). Never throws into the task. */
    void onFinished(@Observes EpisodeFinished event) {
        if (event.workflowInstanceId() != null || !"failed".equals(event.status())) {
            return;
        }
        BackgroundPass.run("episode_retry_schedule", LOG, telemetry, () -> "The retry of failed episode "
                + event.episodeId() + " could not be scheduled; it ends failed", () -> retries().onFinished(event));
    }

    /**
     * After every recovery sweep (on a node that is not disabled), over the sweep's scope: the
     * retries of failures nobody heard — the failure commits before its retry is decided, so a
     * node killed in between leaves one (see {@link EpisodeRetries#reconcile}).
     */
    void onSwept(@Observes RecoverySwept swept) {
        if (modes.nodeMode() == NodeMode.DISABLED) {
            return;
        }
        List<String> actors = host.definitions().stream()
                .filter(a -> a.expectations().stream().anyMatch(e -> e.retry().maxAttempts() > 1))
                .map(ActorDefinition::id).toList();
        BackgroundPass.run("episode_retry_reconcile", LOG, telemetry, () -> "Retry reconcile on " + identity.name()
                + " failed; it runs again after the next recovery sweep",
                () -> retries().reconcile(actors, swept.stack(), swept.anyStack(), swept.env(), BATCH));
    }

    /** Starts due retries; called by every full node's timer. */
    public int runDue() {
        return retries().runDue(BATCH);
    }

    /** An operator's retry of a failed plain episode, now (see {@link EpisodeRetries#retryNow}). */
    public Optional<EpisodeRetries.Started> retryNow(String episodeId) {
        return retries().retryNow(episodeId);
    }

    /** When the failed episode's next attempt is due (UTC), if one is waiting. */
    public Optional<LocalDateTime> nextRetryAt(String episodeId) {
        return tx.inNewTransaction(em -> queries.state(em, episodeId)).dueAt();
    }
}
