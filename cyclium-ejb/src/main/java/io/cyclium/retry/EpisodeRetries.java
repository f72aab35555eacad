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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
 * the original trigger cannot start a twin meanwhile either. An operator's restart of the failed
 * episode and a timer starting its next attempt are one guarded transition of the failed row
 * ({@link EpisodeRetryStore#CLAIMED}): exactly one of the two runs.
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
    /** Where each scope's reconcile scan goes on (see {@link #reconcile}); a scope is stack and env. */
    private final Map<String, EpisodeRetryQueries.ScanCursor> reconcileCursors = new ConcurrentHashMap<>();

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
     * due time. Returns that time as this node's clock sees it (the stored one is the database's
     * clock plus the same backoff), empty when it does not retry.
     */
    public Optional<Instant> onFinished(EpisodeFinished event) {
        if (!EpisodeStatus.FAILED.wire().equals(event.status()) || event.workflowInstanceId() != null
                || "denied".equals(event.errorClass())) {
            return Optional.empty();
        }
        return decide(event.episodeId(), event.actorId(), event.expectationId(), event.errorClass(), false);
    }

    /** Who hears of each retry stored here, once committed, with its backoff (this node's retry alarm). */
    public void onRetryStored(java.util.function.Consumer<Duration> listener) {
        this.retryStored = listener;
    }

    private volatile java.util.function.Consumer<Duration> retryStored = in -> { };

    /**
     * Schedules the retries of failures nobody heard; run after every recovery sweep, over the
     * sweep's scope. The failure and its retry row are two transactions: the episode's terminal
     * commit, then {@link #onFinished} on the node that ran it, after the commit. A node killed
     * between the two (or an {@code EpisodeFinished} lost to a failing listener) leaves a failed
     * episode with attempts left and no due time; this finds such episodes — failed, plain, not
     * archived, not yet decided, of an expectation with a retry policy here, finished within
     * {@link #RECONCILE_WINDOW} by the database's clock — newest first, and makes the same decision
     * {@link #onFinished} would have made, through the same guarded {@code schedule} (so a late
     * live hook and a reconcile land once). The wait starts when reconcile hears the failure.
     *
     * <p>A failure with no attempt left stays a candidate (no column records "decided: no retry")
     * and is decided again, to the same answer, by each reconcile while it is in the window; hence
     * the window, and the {@code limit} per call. So that more than {@code limit} such rows cannot
     * hide an older failure that would retry, one call reads one page and the next call of the same
     * scope goes on after it (a keyset cursor in this object, one per scope); a page shorter than
     * {@code limit} ends the scan, and the call after it starts again from the newest. Every
     * candidate is therefore reached within (candidates / limit + 1) sweeps. A node restart only
     * starts its scan over; the cursor needs no agreement between nodes (each decision is guarded).
     *
     * @return how many retries this call scheduled
     */
    public int reconcile(Collection<String> actorsWithPolicy, String stack, boolean anyStack, String env, int limit) {
        if (actorsWithPolicy.isEmpty()) {
            return 0;
        }
        String scope = (anyStack ? "*" : String.valueOf(stack)) + "|" + env;
        EpisodeRetryQueries.ScanCursor after = reconcileCursors.get(scope);
        List<EpisodeRetryQueries.Unheard> unheard = tx.inNewTransaction(em -> queries.unheardFailures(em, store.vendor(),
                actorsWithPolicy, stack, anyStack, env, RECONCILE_WINDOW, after, limit));
        if (unheard.size() < limit || unheard.get(unheard.size() - 1).startedAt() == null) {
            reconcileCursors.remove(scope);
        } else {
            EpisodeRetryQueries.Unheard last = unheard.get(unheard.size() - 1);
            reconcileCursors.put(scope, new EpisodeRetryQueries.ScanCursor(last.startedAt(), last.episodeId()));
        }
        int scheduled = 0;
        for (EpisodeRetryQueries.Unheard u : unheard) {
            if (decide(u.episodeId(), u.actorId(), u.expectationId(), u.errorClass(), true).isPresent()) {
                scheduled++;
                telemetry.count("episode_retry_reconciled", "actor", u.actorId(), "expectation", u.expectationId());
            }
        }
        return scheduled;
    }

    /** How far back reconcile looks for failures nobody heard (by the episode's {@code finished_at}). */
    public static final Duration RECONCILE_WINDOW = Duration.ofHours(24);

    /**
     * The one retry decision, for the live hook and for reconcile: a failed plain episode with
     * attempts left (by its expectation's policy and its error class) gets its next due time on
     * its row and a {@code retry_scheduled} journal row, both in one transaction, once.
     */
    private Optional<Instant> decide(String episodeId, String actorId, String expectationId, String errorClass,
            boolean reconciled) {
        Optional<Instant> next = decideInTransaction(episodeId, actorId, expectationId, errorClass, reconciled);
        next.ifPresent(at -> retryStored.accept(Duration.between(clock.instant(), at)));
        return next;
    }

    private Optional<Instant> decideInTransaction(String episodeId, String actorId, String expectationId, String errorClass,
            boolean reconciled) {
        if ("denied".equals(errorClass)) {
            return Optional.empty();
        }
        Optional<RetryPolicy> policy = policies.apply(actorId, expectationId);
        if (policy.isEmpty() || policy.get().maxAttempts() <= 1) {
            return Optional.empty();
        }
        return tx.inNewTransaction(em -> {
            Optional<EpisodeRetryQueries.Finished> row = queries.finished(em, episodeId);
            if (row.isEmpty() || !EpisodeStatus.FAILED.wire().equals(row.get().status())
                    || row.get().workflowInstanceId() != null) {
                return Optional.<Instant>empty();
            }
            Chain chain = chainOf(episodeId, row.get().dedupeKey());
            Instant from = clock.instant();
            Optional<Instant> next = policy.get().nextAttempt(chain.attempt(), errorClass, from, random);
            if (next.isEmpty()) {
                return next;
            }
            // only the backoff is this node's: the due time is the database's clock plus it
            Duration retryIn = Duration.between(from, next.get());
            if (store.schedule(em, episodeId, retryIn) == 0) {
                return Optional.<Instant>empty(); // heard twice, or restarted or archived meanwhile: already decided
            }
            var detail = Jsons.object().add("attempt", chain.attempt()).add("maxAttempts", policy.get().maxAttempts())
                    .add("errorClass", String.valueOf(errorClass))
                    .add("nextAttempt", chain.attempt() + 1).add("dueInMs", retryIn.toMillis());
            if (reconciled) {
                detail.add("reconciled", true);
            }
            episodes.journal(em, episodeId, episodes.nextStepNo(em, episodeId), StepKind.RETRY_SCHEDULED, node,
                    detail.build(), errorClass, null, null);
            telemetry.count("episode_retry_scheduled", "actor", actorId, "expectation", expectationId);
            return next;
        });
    }

    /** Starts up to {@code limit} due retries; returns how many new episodes this node created. */
    public int runDue(int limit) {
        List<EpisodeRetryQueries.DueRetry> due = tx.inNewTransaction(em -> queries.due(em, store.time(), limit));
        int started = 0;
        for (EpisodeRetryQueries.DueRetry d : due) {
            if (tx.inNewTransaction(em -> store.claim(em, d.episodeId(), CLAIM_LEASE)) == 0) {
                continue; // another node's timer has it
            }
            if (startClaimed(d).filter(s -> s.kind() == RetryLauncher.Kind.CREATED).isPresent()) {
                started++;
            }
        }
        return started;
    }

    /** What {@link #startClaimed} did: the next attempt's episode, and whether this call created it. */
    public record Started(String episodeId, RetryLauncher.Kind kind) {
    }

    /**
     * An operator's retry of one failed plain episode, now: its next attempt (attempt n+1 of its
     * chain, dedupe key {@code retry:<first>:<n+1>}) starts through the same guarded path as a due
     * retry — the due time is set to now, claimed, launched, settled — so a timer racing it and this
     * call start it once between them. Its expectation's retry policy is not asked: the operator
     * decided. Returns the next attempt's episode, or empty when it is due now but not started here
     * (the actor does not run on this node, a timer claimed it first): a full node's timer starts it.
     *
     * @throws io.cyclium.problem.Problem 404 for no such episode; 409 when it is not failed, is a
     *         workflow step, was retried already, is being retried, or is archived
     */
    public Optional<Started> retryNow(String episodeId) {
        tx.run(em -> {
            Optional<EpisodeRetryQueries.Finished> row = queries.finished(em, episodeId);
            if (row.isEmpty()) {
                throw io.cyclium.problem.Problem.notFound("no episode " + episodeId);
            }
            if (!EpisodeStatus.FAILED.wire().equals(row.get().status())) {
                throw io.cyclium.problem.Problem.conflict("episode " + episodeId + " is " + row.get().status()
                        + ", not failed: only a failed episode is retried");
            }
            if (row.get().workflowInstanceId() != null) {
                throw io.cyclium.problem.Problem.conflict("episode " + episodeId + " runs a step of workflow instance "
                        + row.get().workflowInstanceId() + ": retry the step instead");
            }
            EpisodeRetryQueries.RetryState state = queries.state(em, episodeId);
            if (state.retriedBy().isPresent()) {
                throw io.cyclium.problem.Problem.conflict("episode " + episodeId + " was already retried as episode "
                        + state.retriedBy().get());
            }
            if (state.claimed()) {
                throw io.cyclium.problem.Problem.conflict("episode " + episodeId
                        + " is being retried by a node's retry timer right now");
            }
            if (store.dueNow(em, episodeId) == 0) {
                throw io.cyclium.problem.Problem.conflict("episode " + episodeId + " is archived or changed meanwhile;"
                        + " it is not retried");
            }
        });
        if (tx.inNewTransaction(em -> store.claim(em, episodeId, CLAIM_LEASE)) == 0) {
            return Optional.empty(); // a timer claimed it between the two: it starts it
        }
        EpisodeRetryQueries.DueRetry d = tx.inNewTransaction(em -> queries.dueOne(em, episodeId)).orElseThrow();
        return startClaimed(d);
    }

    /** Starts the next attempt of a retry this node claimed, and settles the failed row on it. */
    private Optional<Started> startClaimed(EpisodeRetryQueries.DueRetry d) {
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
            if (launch.kind() == RetryLauncher.Kind.NOT_NOW) {
                tx.run(em -> store.release(em, d.episodeId()));
            }
            LOG.fine(() -> "Retry of episode " + d.episodeId() + " not started here (" + launch.why()
                    + "); it is due again in " + CLAIM_LEASE.toSeconds() + " s");
            return Optional.empty();
        }
        tx.run(em -> {
            if (store.settle(em, d.episodeId(), next.get()) == 1) {
                episodes.journal(em, d.episodeId(), episodes.nextStepNo(em, d.episodeId()), StepKind.RETRY_STARTED,
                        node, Jsons.object().add("attempt", chain.attempt() + 1).add("episodeId", next.get()).build(),
                        null, null, null);
            }
        });
        if (launch.kind() == RetryLauncher.Kind.CREATED) {
            telemetry.count("episode_retry_started", "actor", d.actorId(), "expectation", d.expectationId());
        }
        return Optional.of(new Started(next.get(), launch.kind()));
    }

    static LocalDateTime utc(Instant t) {
        return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
