package io.cyclium.operations;

import io.cyclium.episode.EpisodeEntity;
import io.cyclium.runtime.ConcurrencySlot;
import io.cyclium.runtime.ConcurrencyStore;
import io.cyclium.runtime.RateLimit;
import io.cyclium.runtime.RateStore;
import io.cyclium.store.DatabaseVendor;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Says why a stored, not yet started episode waits when a cluster-wide limit holds it back:
 * "key tenant-a at limit 2/2", "actor worker at limit 3/3". One count of the slots in use per
 * distinct limit on a page (at most a page's worth), and none at all for a page without queued
 * episodes of a limited expectation. The limits are the deployed ones of this node.
 */
public final class ConcurrencyWaits {

    /** The limits an episode of (actor, expectation) with a key waits for; empty when none. */
    @FunctionalInterface
    public interface Limits {
        List<ConcurrencySlot> of(String actorId, String expectationId, String key);
    }

    /** The rate limits a first start of an episode of (actor, expectation) with a key takes a token of; empty when none. */
    @FunctionalInterface
    public interface Rates {
        List<RateLimit> of(String actorId, String expectationId, String key);
    }

    private final DatabaseVendor vendor;
    private final Limits limits;
    private final Rates rates;

    public ConcurrencyWaits(DatabaseVendor vendor, Limits limits) {
        this(vendor, limits, (actor, expectation, key) -> List.of());
    }

    public ConcurrencyWaits(DatabaseVendor vendor, Limits limits, Rates rates) {
        this.vendor = vendor;
        this.limits = limits;
        this.rates = rates;
    }

    /** With the limits deployed on this node (its actors' runtimes). */
    public static ConcurrencyWaits deployedOn(DatabaseVendor vendor, io.cyclium.runtime.ActorHost host) {
        return new ConcurrencyWaits(vendor, (actor, expectation, key) -> host.runtime(actor)
                .map(rt -> rt.limitsOf(expectation, key == null ? io.cyclium.actor.FlowControl.NO_KEY : key))
                .orElse(List.of()), (actor, expectation, key) -> host.runtime(actor).map(rt -> rt.ratesOf(expectation, key))
                .orElse(List.of()));
    }

    /** The rows as views, each queued one under a limit explained. */
    public List<EpisodeView> views(EntityManager em, List<EpisodeEntity> rows) {
        Map<ConcurrencySlot, Integer> inUse = new HashMap<>();
        List<EpisodeView> out = new ArrayList<>(rows.size());
        for (EpisodeEntity e : rows) {
            EpisodeView v = EpisodeView.of(e);
            if (e.queuedAt != null && "running".equals(e.status)) {
                String why = why(em, withStepKey(e, limits.of(e.actorId, e.expectationId, e.concurrencyKey)), inUse);
                if (why == null && e.attempts <= 1) {
                    why = due(em, rates.of(e.actorId, e.expectationId, e.concurrencyKey));
                }
                if (why != null) {
                    v = v.withQueuedBecause(why);
                }
            }
            out.add(v);
        }
        return out;
    }

    /** The episode's limits and its workflow step's own (from its row: the definition may have changed since). */
    private static List<ConcurrencySlot> withStepKey(EpisodeEntity e, List<ConcurrencySlot> limits) {
        return ConcurrencySlot.stepFirst(e.stepKeyScope == null || e.stepKey == null || e.stepKeyLimit == null ? null
                : new ConcurrencySlot(e.stepKeyScope, e.stepKey, Math.max(1, e.stepKeyLimit)), limits);
    }

    /** The rate limit whose next token is furthest off: "rate of a/b 10 per PT1S, next start due in 350 ms"; null when none. */
    private String due(EntityManager em, List<RateLimit> limits) {
        RateStore store = new RateStore(vendor);
        String why = null;
        long longest = 0;
        for (RateLimit r : limits) {
            long ms = store.dueInMillis(em, r);
            if (ms > longest) {
                longest = ms;
                why = r.describe() + ", next start due in " + ms + " ms (database clock)";
            }
        }
        return why;
    }

    /** The first of {@code slots} at its limit ("key a at limit 2/2"), else each with its use; null when none. */
    private String why(EntityManager em, List<ConcurrencySlot> slots, Map<ConcurrencySlot, Integer> inUse) {
        if (slots.isEmpty()) {
            return null;
        }
        ConcurrencyStore store = new ConcurrencyStore(vendor);
        List<String> parts = new ArrayList<>();
        for (ConcurrencySlot s : slots) {
            int used = inUse.computeIfAbsent(s, k -> store.inUse(em, k.scope(), k.key()));
            if (used >= s.limit()) {
                return s.describe() + " at limit " + used + "/" + s.limit();
            }
            parts.add(s.describe() + " " + used + "/" + s.limit() + " in use");
        }
        return String.join(", ", parts) + " (a slot is free: starts on a node's next pass)";
    }
}
