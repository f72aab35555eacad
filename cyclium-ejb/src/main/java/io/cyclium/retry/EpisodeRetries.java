package io.cyclium.retry;

import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.StepKind;
import io.cyclium.store.Jsons;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.timing.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.DoubleSupplier;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Persisted retries of plain episodes. When an episode of an expectation with a retry policy ends
 * {@code failed} with attempts left, {@link #onFinished} stores when the next attempt is due on the
 * failed row and journals it there; {@link #runDue} (every full node's timer) claims due rows and
 * starts each next attempt as a new episode.
 *
 * <p>Why no attempt starts twice: the claim is a state-checked UPDATE (one timer wins a tick), and
 * attempt n+1 of the chain that began with episode E has the dedupe key {@code retry:E:n+1}, held by
 * the unique index on live keys, so even a second start after a lapsed claim is a duplicate. The
 * failed episodes keep their own keys while they wait (terminal rows hold a key until archived), so
 * the original trigger cannot start a twin meanwhile either.
 */
public class EpisodeRetries {

    private static final Logger LOG = Logger.getLogger(EpisodeRetries.class.getName());

    /** How long a claimed retry stays this node's before another node may start it. */
    static final Duration CLAIM_LEASE = Duration.ofSeconds(60);

    public static final String KEY_PREFIX = "retry:";
    private static final Pattern RETRY_KEY = Pattern.compile("^retry:([^:]+):(\\d+)$");

    private final Tx tx;
    private final EpisodeRetryStore store;
    private final EpisodeRetryQueries queries;
    private final EpisodeStore episodes;
    private final BiFunction<String, String, Optional<RetryPolicy>> policies;
    private final RetryLauncher launcher;
    private final Clock clock;
    private final DoubleSupplier random;
    private final String node;
    private final Telemetry telemetry;

    /**
     * @param policies the retry policy of (actor, expectation), empty when it does not run here
     */
    public EpisodeRetries(Tx tx, EpisodeRetryStore store, EpisodeRetryQueries queries, EpisodeStore episodes,
            BiFunction<String, String, Optional<RetryPolicy>> policies, RetryLauncher launcher, Clock clock,
            DoubleSupplier random, String node, Telemetry telemetry) {
        this.tx = tx;
        this.store = store;
        this.queries = queries;
        this.episodes = episodes;
        this.policies = policies;
        this.launcher = launcher;
        this.clock = clock;
        this.random = random;
        this.node = node;
        this.telemetry = telemetry;
    }

    /** Attempt number and first episode of a chain, read from an episode's own dedupe key. */
    record Chain(String firstEpisodeId, int attempt) {
    }

    static Chain chainOf(String episodeId, String dedupeKey) {
        if (dedupeKey != null) {
            Matcher m = RETRY_KEY.matcher(dedupeKey);
            if (m.matches()) {
                return new Chain(m.group(1), Integer.parseInt(m.group(2)));
            }
        }
        return new Chain(episodeId, 1);
    }

    static String keyOf(Chain chain, int attempt) {
        return KEY_PREFIX + chain.firstEpisodeId() + ":" + attempt;
    }

    /**
     * An episode ended (after its terminal commit). A plain (not workflow) episode that failed —
     * not canceled, not denied, not of a never-retry error class — with attempts left gets its next
     * due time. Returns that time, empty when it does not retry.
     */
    public Optional<Instant> onFinished(EpisodeFinished event) {
        if (!EpisodeStatus.FAILED.wire().equals(event.status()) || event.workflowInstanceId() != null
                || "denied".equals(event.errorClass())) {
            return Optional.empty();
        }
        Optional<RetryPolicy> policy = policies.apply(event.actorId(), event.expectationId());
        if (policy.isEmpty() || policy.get().maxAttempts() <= 1) {
            return Optional.empty();
        }
        return tx.inNewTransaction(em -> {
            Optional<EpisodeRetryQueries.Finished> row = queries.finished(em, event.episodeId());
            if (row.isEmpty() || !EpisodeStatus.FAILED.wire().equals(row.get().status())
                    || row.get().workflowInstanceId() != null) {
                return Optional.<Instant>empty();
            }
            Chain chain = chainOf(event.episodeId(), row.get().dedupeKey());
            Optional<Instant> next = policy.get().nextAttempt(chain.attempt(), event.errorClass(), clock.instant(), random);
            if (next.isEmpty()) {
                return next;
            }
            if (store.schedule(em, event.episodeId(), utc(next.get())) == 0) {
                return Optional.<Instant>empty(); // heard twice, or restarted meanwhile: already decided
            }
            episodes.journal(em, event.episodeId(), episodes.nextStepNo(em, event.episodeId()), StepKind.RETRY_SCHEDULED,
                    node, Jsons.object().add("attempt", chain.attempt()).add("maxAttempts", policy.get().maxAttempts())
                            .add("errorClass", String.valueOf(event.errorClass()))
                            .add("nextAttempt", chain.attempt() + 1).add("nextAt", next.get().toString()).build(),
                    event.errorClass(), null, null);
            telemetry.count("episode_retry_scheduled", "actor", event.actorId(), "expectation", event.expectationId());
            return next;
        });
    }

    /** Starts up to {@code limit} due retries; returns how many new episodes this node created. */
    public int runDue(int limit) {
        LocalDateTime now = utc(clock.instant());
        List<EpisodeRetryQueries.DueRetry> due = tx.inNewTransaction(em -> queries.due(em, now, limit));
        int started = 0;
        for (EpisodeRetryQueries.DueRetry d : due) {
            if (tx.inNewTransaction(em -> store.claim(em, d.episodeId(), now, now.plus(CLAIM_LEASE))) == 0) {
                continue; // another node's timer has it
            }
            Chain chain = chainOf(d.episodeId(), d.dedupeKey());
            String key = keyOf(chain, chain.attempt() + 1);
            RetryLauncher.Launch launch = launcher.launch(d, key);
            Optional<String> next = switch (launch.kind()) {
                case CREATED -> launch.episodeId();
                // a start of this attempt got through before (a claim that lapsed): settle on it
                case DUPLICATE -> tx.inNewTransaction(em -> queries.holderOf(em, key));
                case NOT_NOW -> Optional.empty();
            };
            if (next.isEmpty()) {
                LOG.fine(() -> "Retry of episode " + d.episodeId() + " not started here (" + launch.why()
                        + "); it is due again in " + CLAIM_LEASE.toSeconds() + " s");
                continue;
            }
            tx.run(em -> {
                if (store.settle(em, d.episodeId(), next.get()) == 1) {
                    episodes.journal(em, d.episodeId(), episodes.nextStepNo(em, d.episodeId()), StepKind.RETRY_STARTED,
                            node, Jsons.object().add("attempt", chain.attempt() + 1).add("episodeId", next.get()).build(),
                            null, null, null);
                }
            });
            if (launch.kind() == RetryLauncher.Kind.CREATED) {
                started++;
                telemetry.count("episode_retry_started", "actor", d.actorId(), "expectation", d.expectationId());
            }
        }
        return started;
    }

    static LocalDateTime utc(Instant t) {
        return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
