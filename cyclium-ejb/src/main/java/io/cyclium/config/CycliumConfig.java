package io.cyclium.config;

import java.time.Duration;
import java.util.Optional;

/**
 * Every {@code cyclium.*} property, read once at boot and validated. Nothing else in the runtime
 * reads MicroProfile Config directly, so a value that is out of range cannot surface half-way
 * through a run.
 *
 * @param nodeIdentity           explicit node identity, if configured
 * @param mode                   initial node mode
 * @param stackSlug              logical cluster this node belongs to (null: single-stack default)
 * @param env                    independent world inside a shared database (null: the unset env)
 * @param migrateSchema          whether Flyway applies sql/&lt;vendor&gt; at boot
 * @param demoEnabled            whether the demo actors start
 * @param workClaimsEnabled      whether episode tasks take leases (false: passthrough)
 * @param leaseSeconds           work-claim lease length
 * @param heartbeatMinTickMs     lower bound for the heartbeat interval (lease/3 must not go below)
 * @param recoveryInitialDelay   first recovery sweep after boot
 * @param recoveryInterval       time between sweeps
 * @param staleAfter             journal quiet time after which a running episode is an orphan
 * @param triggerPollInterval    trigger-request poll interval
 * @param triggerPollExpireAfter age after which a pending trigger request expires
 * @param triggerPollBatchSize   requests read per poll
 * @param triggerPollSourceEnv   env the poller serves (null: the node's own)
 * @param triggerPollSourceStack stack the poller serves (null: any)
 * @param shutdownGrace          how long the drain waits for tasks to stop
 * @param jitterMaxMs            upper bound of the random delay before an episode insert
 * @param maxConcurrentDefault   default per-actor, per-node concurrency
 * @param executorThreads        threads of the node's episode executor, shared by all actors' slots
 * @param groupCommitMax         most writes (episode rows, terminal writes, journal rows) one shared
 *                               transaction takes; 1 turns group commit off
 * @param groupCommitWriters     threads committing those shared transactions
 * @param adminPassword          console admin password, if configured (never logged)
 * @param viewerPassword         console read-only password, if configured (never logged); no viewer without it
 * @param identity               where the console and the API take users and roles from
 * @param oidc                   the OpenID Connect client, present exactly when {@code identity} is oidc
 * @param failedLoginsBeforeDelay failed logins of one user from one address before the next attempt
 *                               must wait (1 s, doubling per further failure, at most 5 min)
 * @param clockSkew              test hook: shifts this node's application clock (never lease arithmetic,
 *                               which runs on the database clock) to prove drift changes nothing
 * @param retention              windows, time of day and chunk size of the retention job
 * @param tracing                whether episodes and workflows make spans ({@code otel.sdk.disabled=false})
 * @param workflowAdvanceInCommit whether a workflow step's terminal write also records the step and
 *                               advances its instance in its transaction (the default; false: after the commit,
 *                               from the terminal event, in transactions of their own)
 * @param bulkMaxItems           most episodes one bulk action takes ({@code cyclium.bulk.max-items})
 * @param bulkLease              how long a node holds a bulk action without renewing it ({@code cyclium.bulk.lease-seconds}):
 *                               how soon another node continues the action of a node that died
 * @param flow                   concurrency limits' recheck interval and priority aging ({@code cyclium.concurrency.*}, {@code cyclium.priority.*})
 */
public record CycliumConfig(
        Optional<String> nodeIdentity,
        NodeMode mode,
        String stackSlug,
        String env,
        boolean migrateSchema,
        boolean demoEnabled,
        boolean workClaimsEnabled,
        int leaseSeconds,
        long heartbeatMinTickMs,
        Duration recoveryInitialDelay,
        Duration recoveryInterval,
        Duration staleAfter,
        Duration triggerPollInterval,
        Duration triggerPollExpireAfter,
        int triggerPollBatchSize,
        String triggerPollSourceEnv,
        String triggerPollSourceStack,
        Duration shutdownGrace,
        int jitterMaxMs,
        int maxConcurrentDefault,
        int executorThreads,
        int groupCommitMax,
        int groupCommitWriters,
        Optional<String> adminPassword,
        Optional<String> viewerPassword,
        IdentitySource identity,
        Optional<OidcSettings> oidc,
        int failedLoginsBeforeDelay,
        Duration clockSkew,
        RetentionSettings retention,
        boolean tracing,
        boolean workflowAdvanceInCommit,
        EpisodeExecutor episodeExecutor,
        int bulkMaxItems,
        Duration bulkLease,
        FlowSettings flow) {

    /** What runs episode tasks: {@code cyclium.episode.executor}. */
    public enum EpisodeExecutor {
        /** A pool of threads from the container's ManagedThreadFactory (the default). */
        THREADS("threads"),
        /** Cyclium's own ManagedExecutorService, defined without context propagation but the application's. */
        MANAGED("managed");

        private final String wireName;

        EpisodeExecutor(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        public static java.util.Optional<EpisodeExecutor> parse(String raw) {
            for (EpisodeExecutor e : values()) {
                if (e.wireName.equalsIgnoreCase(raw.trim())) {
                    return java.util.Optional.of(e);
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** Heartbeat interval: a third of the lease, so two missed ticks still leave the lease alive. */
    public Duration heartbeatInterval() {
        return Duration.ofMillis(leaseSeconds * 1000L / 3);
    }

    @Override
    public String toString() {
        // adminPassword and viewerPassword are deliberately left out.
        return "CycliumConfig[nodeIdentity=" + nodeIdentity.orElse("(minted)") + ", mode=" + mode.wireName()
                + ", stackSlug=" + stackSlug + ", env=" + env + ", migrateSchema=" + migrateSchema
                + ", demoEnabled=" + demoEnabled + ", workClaimsEnabled=" + workClaimsEnabled
                + ", leaseSeconds=" + leaseSeconds + ", staleAfter=" + staleAfter
                + ", recoveryInterval=" + recoveryInterval + ", triggerPollInterval=" + triggerPollInterval
                + ", shutdownGrace=" + shutdownGrace + ", retention=" + retention + ", tracing=" + tracing
                + ", workflowAdvanceInCommit=" + workflowAdvanceInCommit + ", episodeExecutor=" + episodeExecutor.wireName()
                + ", bulkMaxItems=" + bulkMaxItems + ", bulkLease=" + bulkLease + "]";
    }
}
