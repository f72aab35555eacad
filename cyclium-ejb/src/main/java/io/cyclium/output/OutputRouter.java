package io.cyclium.output;

import io.cyclium.audit.PendingAudit;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.output.OutputAdapter.Delivery;
import io.cyclium.output.OutputStore.RetryClaim;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers outputs exactly once per dedupe key.
 *
 * <p>Three steps, never one transaction: insert the {@code proposed} row (committed at once, so
 * the unique key is claimed before anything leaves the process), call the adapter with no
 * transaction open (an external call must not hold row locks or a connection), then record the
 * result in a second transaction. A node that dies between the adapter call and the last step
 * leaves the output {@code proposed}. When the episode runs again (a restart, a takeover), its
 * converge routes the same output and finds that row: {@link #routeResumed} delivers it again under
 * the same dedupe key — at least once to the adapter, once in effect for an adapter that honours
 * the key (the {@link OutputAdapter} contract asks it to). It is never marked delivered without the
 * adapter having returned.
 *
 * <p>Call it from a thread without a transaction (episode tasks have none); {@link Outputs}
 * suspends a caller's transaction for you.
 */
public final class OutputRouter {

    public static final String NO_ADAPTER = "no_adapter";
    public static final String ADAPTER_ERROR = "adapter_error";

    private static final Logger LOG = Logger.getLogger(OutputRouter.class.getName());

    private final Tx tx;
    private final OutputStore store;
    private final Function<String, Optional<OutputAdapter>> adapters;
    private final Clock clock;
    private final Telemetry telemetry;

    /** @param adapters the adapter for an output type, if one is deployed */
    public OutputRouter(Tx tx, OutputStore store, Function<String, Optional<OutputAdapter>> adapters,
            Clock clock, Telemetry telemetry) {
        this.tx = Objects.requireNonNull(tx, "tx");
        this.store = Objects.requireNonNull(store, "store");
        this.adapters = Objects.requireNonNull(adapters, "adapters");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    }

    /**
     * Delivers {@code proposal} for {@code episode} unless its dedupe key was delivered (or is
     * being delivered, or failed) before.
     *
     * @param nodeEnv the node's env, appended to explicit dedupe keys (null: unset)
     */
    public OutputOutcome route(OutputProposal proposal, EpisodeRef episode, String nodeEnv) {
        return route(proposal, episode, nodeEnv, false);
    }

    /**
     * As {@link #route(OutputProposal, EpisodeRef, String)}, for a run that continues an episode an
     * earlier run started (the caller holds the episode's lease at a newer fence): a {@code proposed}
     * row of this episode is the earlier run's unfinished delivery — it died after storing the row,
     * before recording the adapter's answer, perhaps before calling it. Delivered again, under the
     * same key; one conditional update on its attempts lets exactly one caller do so.
     */
    public OutputOutcome routeResumed(OutputProposal proposal, EpisodeRef episode, String nodeEnv) {
        return route(proposal, episode, nodeEnv, true);
    }

    private OutputOutcome route(OutputProposal proposal, EpisodeRef episode, String nodeEnv, boolean resumedRun) {
        Objects.requireNonNull(episode, "episode");
        String key = OutputKeys.effective(proposal, episode, nodeEnv,
                firstId -> tx.inNewTransaction(em -> store.scopeOfEpisode(em, firstId)));
        String id = UUID.randomUUID().toString();
        boolean mine = tx.inNewTransaction(em ->
                store.insertProposed(em, id, episode.id(), proposal.type(), key, proposal.payload()));
        if (!mine) {
            // The key's row is committed (a losing insert waits for the winner's commit), so it is there.
            OutputView existing = tx.inNewTransaction(em -> store.findByDedupeKey(em, key))
                    .orElseThrow(() -> new IllegalStateException("output dedupe key " + key
                            + " was taken but its row is gone: was the episode deleted meanwhile?"));
            if (resumedRun && OutputStore.PROPOSED.equals(existing.status()) && episode.id().equals(existing.episodeId())
                    && tx.inNewTransaction(em -> store.claimRedelivery(em, existing.id(), existing.attempts())) == 1) {
                telemetry.count("output_redelivered", "type", proposal.type());
                LOG.info(() -> "Output " + key + " of episode " + episode.id() + " was left proposed by an earlier run;"
                        + " delivering it again under the same key (attempt " + (existing.attempts() + 1) + ")");
                return deliver(new Delivery(existing.id(), episode.id(), existing.type(), key, existing.payload(),
                        existing.attempts() + 1));
            }
            telemetry.count("output_deduplicated", "type", proposal.type());
            LOG.fine(() -> "Output " + key + " of episode " + episode.id() + " is a duplicate of " + existing.id()
                    + " (" + existing.status() + "); not delivered again");
            return new OutputOutcome(OutputOutcome.Kind.DUPLICATE, existing.id(), key, existing.status(),
                    existing.deliveredRef(), existing.errorDetail());
        }
        return deliver(new Delivery(id, episode.id(), proposal.type(), key, proposal.payload(), 1));
    }

    /**
     * Delivers a {@code failed} output once more, through the same adapter type and dedupe key; also
     * a {@code proposed} one whose episode has ended (its run died between the adapter and recording
     * the answer, and no run of it will come back to it) — at least once to the adapter, as a resumed
     * run's redelivery is.
     *
     * @throws UnknownOutputException       no output has this id
     * @throws OutputRetryRefusedException  it is neither (delivered, its episode still runs, or being delivered now)
     */
    public OutputOutcome retry(String outputId) {
        RetryClaim claim = tx.inNewTransaction(em -> {
            RetryClaim c = store.claimRetry(em, outputId);
            if (c instanceof RetryClaim.Claimed claimed) {
                // an operator's retry is recorded with the claim that takes the output (failed → retrying)
                PendingAudit.episode(claimed.output().episodeId());
                PendingAudit.recordIn(em);
            }
            return c;
        });
        if (claim instanceof RetryClaim.NotFound) {
            throw new UnknownOutputException(outputId);
        }
        if (claim instanceof RetryClaim.Refused refused) {
            throw new OutputRetryRefusedException(outputId, refused.status());
        }
        OutputView o = ((RetryClaim.Claimed) claim).output();
        LOG.info(() -> "Retrying output " + o.dedupeKey() + " (" + o.id() + ", attempt " + o.attempts() + ")");
        telemetry.count("output_retried", "type", o.type());
        return deliver(new Delivery(o.id(), o.episodeId(), o.type(), o.dedupeKey(), o.payload(), o.attempts()));
    }

    /** Calls the adapter (no transaction open), then records the result in a transaction of its own. */
    private OutputOutcome deliver(Delivery d) {
        Optional<OutputAdapter> adapter = adapters.apply(d.type());
        if (adapter.isEmpty()) {
            return failed(d, NO_ADAPTER, "no OutputAdapter is deployed for output type \"" + d.type() + "\"");
        }
        Instant start = clock.instant();
        String ref;
        try {
            ref = adapter.get().deliver(d);
        } catch (Exception | LinkageError e) {
            telemetry.time("output_delivery", Duration.between(start, clock.instant()), "type", d.type(),
                    "outcome", "failed");
            LOG.log(Level.WARNING, "Output " + d.dedupeKey() + " (" + d.outputId() + ", episode " + d.episodeId()
                    + ", attempt " + d.attempt() + ") failed in its " + d.type()
                    + " adapter; it stays failed until an operator retries it", e);
            return failed(d, ADAPTER_ERROR, e.getClass().getName() + ": " + e.getMessage());
        }
        telemetry.time("output_delivery", Duration.between(start, clock.instant()), "type", d.type(),
                "outcome", "delivered");
        int rows = tx.inNewTransaction(em -> store.markDelivered(em, d.outputId(), ref));
        if (rows == 0) {
            LOG.warning(() -> "Output " + d.dedupeKey() + " (" + d.outputId() + ") was delivered, but its row was no"
                    + " longer proposed or retrying, so it was not marked delivered");
        }
        telemetry.count("output_delivered", "type", d.type());
        return new OutputOutcome(OutputOutcome.Kind.DELIVERED, d.outputId(), d.dedupeKey(),
                OutputStore.DELIVERED, ref, null);
    }

    private OutputOutcome failed(Delivery d, String errorClass, String detail) {
        tx.inNewTransaction(em -> store.markFailed(em, d.outputId(), errorClass, detail));
        telemetry.count("output_failed", "type", d.type(), "error", errorClass);
        return new OutputOutcome(OutputOutcome.Kind.FAILED, d.outputId(), d.dedupeKey(), OutputStore.FAILED,
                null, detail);
    }

    /**
     * Indexes adapters by {@link OutputAdapter#type()}. Two adapters for one type would make
     * delivery depend on discovery order, so that is refused with both named.
     *
     * @param describe names an adapter in the error message (its bean class, say)
     */
    public static Map<String, OutputAdapter> byType(Collection<OutputAdapter> adapters,
            Function<OutputAdapter, String> describe) {
        Map<String, OutputAdapter> byType = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (OutputAdapter adapter : adapters) {
            String type = adapter.type();
            if (type == null || type.isBlank()) {
                problems.add(describe.apply(adapter) + " has no output type");
                continue;
            }
            OutputAdapter earlier = byType.putIfAbsent(type, adapter);
            if (earlier != null) {
                problems.add("output type \"" + type + "\" has two adapters, " + describe.apply(earlier) + " and "
                        + describe.apply(adapter));
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Cyclium output adapters are misconfigured: " + String.join("; ", problems)
                    + ". Each output type needs exactly one OutputAdapter bean.");
        }
        return byType;
    }
}
