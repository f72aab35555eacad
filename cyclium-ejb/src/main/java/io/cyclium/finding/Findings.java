package io.cyclium.finding;

import io.cyclium.config.CycliumConfig;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Findings for the rest of the runtime: each call is its own committed transaction (through
 * {@link Tx}), and a {@link FindingChanged} event follows every raise, update or clear once it
 * has committed. The SQL lives in {@link FindingStore} (writes) and {@link FindingQueries} (reads).
 */
@ApplicationScoped
public class Findings {

    private static final Logger LOG = Logger.getLogger(Findings.class.getName());

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    CycliumConfig config;

    @Inject
    Event<FindingChanged> changed;

    @Inject
    Telemetry telemetry;

    private FindingStore store;
    private FindingQueries queries;
    /** Active findings per severity as last counted (the finding_active gauges read these, never the database). */
    private final Map<String, java.util.concurrent.atomic.AtomicLong> active = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile long activeCountedAt = Long.MIN_VALUE / 2;

    @PostConstruct
    void init() {
        store = new FindingStore(vendor);
        queries = new FindingQueries(vendor);
        for (Severity s : Severity.values()) {
            java.util.concurrent.atomic.AtomicLong n = new java.util.concurrent.atomic.AtomicLong();
            active.put(s.wireName(), n);
            telemetry.gauge("finding_active", n::get, "severity", s.wireName());
        }
    }

    /**
     * Counts the active findings of the cluster (every env) for the finding_active gauges: one
     * grouped count on the (status, class) index. The expiry sweep calls it every tick, and a
     * change on this node calls it at most every {@value #ACTIVE_RECOUNT_MS} ms, so this node's own
     * raises and clears show at once and other nodes' within a sweep interval.
     */
    public void recountActive(boolean throttled) {
        long now = System.nanoTime();
        if (throttled && now - activeCountedAt < ACTIVE_RECOUNT_MS * 1_000_000L) {
            return;
        }
        activeCountedAt = now;
        Map<String, Long> counts = tx.inNewTransaction(em -> queries.activeCountsBySeverity(em));
        counts.forEach((severity, n) -> {
            java.util.concurrent.atomic.AtomicLong gauge = active.get(severity);
            if (gauge != null) {
                gauge.set(n);
            }
        });
    }

    static final long ACTIVE_RECOUNT_MS = 5_000;

    public FindingOutcome apply(FindingAction action, EpisodeRef episode) {
        return apply(action, episode, null);
    }

    /** @param defaultTtl the expectation's TTL for raises that name none (null: none) */
    public FindingOutcome apply(FindingAction action, EpisodeRef episode, Duration defaultTtl) {
        FindingOutcome outcome = tx.inNewTransaction(em -> store.apply(em, action, episode, defaultTtl));
        if (outcome.changed()) {
            telemetry.count("finding_" + outcome.kind().name().toLowerCase(Locale.ROOT), "class", outcome.findingClass());
            String episodeId = episode == null ? null : episode.id();
            try {
                changed.fire(FindingChanged.of(outcome, episodeId));
            } catch (RuntimeException e) {
                // the change is committed; an observer's failure must not turn it into an error
                LOG.log(Level.WARNING, "A FindingChanged observer failed for finding " + outcome.findingKey()
                        + " (" + outcome.kind() + ", episode " + episodeId + "); the finding itself is saved", e);
            }
            try {
                recountActive(true);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "Counting active findings for the finding_active gauge failed; the expiry sweep counts again", e);
            }
        }
        return outcome;
    }

    /** Active findings of this node's env; see {@link FindingQueries#activeFor}. */
    public List<FindingView> activeFor(Map<String, String> filters) {
        return activeFor(filters, config.env());
    }

    /** Active findings of {@code env} (null: the unset env), up to {@value FindingQueries#MAX_PAGE}. */
    public List<FindingView> activeFor(Map<String, String> filters, String env) {
        return tx.inNewTransaction(em -> queries.activeFor(em, filters, env, FindingQueries.MAX_PAGE));
    }

    /** See {@link FindingQueries#list}. */
    public List<FindingView> list(String status, String findingClass, String env, boolean anyEnv, int limit) {
        return tx.inNewTransaction(em -> queries.list(em, status, findingClass, env, anyEnv, limit));
    }

    /** Clears up to {@code batch} expired findings in one transaction; see {@link FindingStore#expireDue}. */
    public int expireDue(int batch) {
        return tx.inNewTransaction(em -> store.expireDue(em, batch));
    }
}
