package io.cyclium.runtime;

import io.cyclium.execution.EpisodeLauncher;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.actor.EventTrigger;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.Overflow;
import io.cyclium.keys.DedupeKeys;

import io.cyclium.keys.CanonicalJson;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.timing.Jitter;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One actor on this node: its slots (max concurrent episodes), the FIFO of episodes waiting for a
 * slot, debounce timers, cooldowns and circuit breakers. This state is per node and in memory;
 * what must survive a crash is in the database (queued episodes are rows the sweep recovers).
 *
 * <p>The cluster-wide guarantee — one episode per trigger — does not come from here: every node's
 * runtime tries the insert and the unique index on active dedupe keys lets exactly one through.
 */
public final class ActorRuntime {

    private static final Logger LOG = Logger.getLogger(ActorRuntime.class.getName());

    private record Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered) {
    }

    private final ActorDefinition definition;
    private final int maxConcurrent;
    private final EpisodeLauncher launcher;
    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final Telemetry telemetry;
    private final String node;
    private final String stackSlug;
    private final String env;
    private final Jitter jitter;
    private final Supplier<NodeMode> mode;

    private final Set<String> active = new LinkedHashSet<>();
    private final Deque<Pending> queue = new ArrayDeque<>();
    private int reserved;
    private volatile boolean accepting = true;
    private final Map<String, CircuitBreaker> breakers = new HashMap<>();
    private final Map<String, ScheduledFuture<?>> debounces = new ConcurrentHashMap<>();
    private final Map<String, Instant> cooldownUntil = new ConcurrentHashMap<>();

    public ActorRuntime(ActorDefinition definition, int maxConcurrent, EpisodeLauncher launcher, ScheduledExecutorService timers,
            Clock clock, Telemetry telemetry, String node, String stackSlug, String env, long jitterMaxMs) {
        this(definition, maxConcurrent, launcher, timers, clock, telemetry, node, stackSlug, env, jitterMaxMs,
                () -> NodeMode.FULL);
    }

    /** @param mode this actor's current mode (node mode or override), read on every trigger */
    public ActorRuntime(ActorDefinition definition, int maxConcurrent, EpisodeLauncher launcher, ScheduledExecutorService timers,
            Clock clock, Telemetry telemetry, String node, String stackSlug, String env, long jitterMaxMs,
            Supplier<NodeMode> mode) {
        this.mode = mode;
        this.definition = definition;
        this.maxConcurrent = maxConcurrent;
        this.launcher = launcher;
        this.timers = timers;
        this.clock = clock;
        this.telemetry = telemetry;
        this.node = node;
        this.stackSlug = stackSlug;
        this.env = env;
        this.jitter = new Jitter(Duration.ofMillis(Math.max(0, jitterMaxMs)));
        for (ExpectationDefinition e : definition.expectations()) {
            if (e.hasBreaker()) {
                breakers.put(e.id(), new CircuitBreaker(e.breakerThreshold(), e.breakerHalfOpenAfter()));
            }
        }
    }

    public ActorDefinition definition() {
        return definition;
    }

    public int maxConcurrent() {
        return maxConcurrent;
    }

    // ---- triggers --------------------------------------------------------------------------

    /** Matches an event against this actor's expectations; returns the dedupe keys it will try. */
    public Map<String, String> onEvent(CycliumEvent event) {
        Map<String, String> matched = new HashMap<>();
        for (ExpectationDefinition exp : definition.expectations()) {
            for (EventTrigger trigger : exp.events()) {
                if (!trigger.type().equals(event.type()) || !trigger.filter().matches(event.payload())) {
                    continue;
                }
                String key = DedupeKeys.withEnv(DedupeKeys.event(definition.id(), exp.id(), event.id(), event.type(),
                        event.payload()), env);
                matched.put(exp.id(), key);
                acceptEvent(exp, event, key);
                break;
            }
        }
        return matched;
    }

    private void acceptEvent(ExpectationDefinition exp, CycliumEvent event, String key) {
        String subject = exp.id() + "|" + subjectOf(exp, event.payload());
        if (!exp.cooldown().isZero()) {
            Instant until = cooldownUntil.get(subject);
            if (until != null && clock.instant().isBefore(until)) {
                telemetry.count("trigger_cooled_down", "actor", definition.id(), "expectation", exp.id());
                return;
            }
        }
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.EVENT, event.type(), event.id(), event.payload(), null);
        if (!exp.debounce().isZero()) {
            // Trailing edge: each event re-arms the timer; the last one within the window fires.
            debounces.compute(subject, (k, previous) -> {
                if (previous != null) {
                    previous.cancel(false);
                }
                // remove(k, self): a timer that fires while a newer event re-arms the subject must not
                // remove the newer timer from the map, or a later event could not cancel it.
                java.util.concurrent.atomic.AtomicReference<ScheduledFuture<?>> self = new java.util.concurrent.atomic.AtomicReference<>();
                ScheduledFuture<?> f = timers.schedule(() -> {
                    debounces.remove(k, self.get());
                    fireWithJitter(exp, trigger, key, false);
                }, exp.debounce().toMillis(), TimeUnit.MILLISECONDS);
                self.set(f);
                return f;
            });
            return;
        }
        fireWithJitter(exp, trigger, key, false);
    }

    private static String subjectOf(ExpectationDefinition exp, JsonObject payload) {
        if (exp.subjectKey() == null) {
            return "";
        }
        JsonValue v = payload;
        for (String part : exp.subjectKey().split("\\.")) {
            if (!(v instanceof JsonObject o) || !o.containsKey(part)) {
                return "\u0000none";
            }
            v = o.get(part);
        }
        return v instanceof JsonString s ? s.getString() : CanonicalJson.canonical(v);
    }

    /** Fires after a random 0..jitter delay so the fastest node does not win every key. */
    public void fireWithJitter(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker) {
        timers.schedule(() -> BackgroundPass.run("trigger", new String[] {"actor", definition.id(), "expectation", exp.id()},
                LOG, telemetry, () -> "Trigger " + trigger.type() + " for " + exp.qualifiedId() + " (key " + dedupeKey
                        + ") failed; it will fire again on the next trigger",
                () -> fire(exp, trigger, dedupeKey, bypassBreaker)), jitter.nextMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Creates the episode for one trigger and runs or queues it. {@code bypassBreaker} is for
     * manual starts. Duplicates (key taken) are the normal result on all but one node.
     */
    public FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker) {
        return fire(exp, trigger, dedupeKey, bypassBreaker, null, null);
    }

    public FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
            String workflowInstanceId, String workflowStepId) {
        return fire(exp, trigger, dedupeKey, bypassBreaker, workflowInstanceId, workflowStepId, null);
    }

    /**
     * The stack and env an episode is stamped with when a caller acts on another world than this
     * node's (seeding or inspecting another env from any node). The caller computes the dedupe
     * key for that env.
     */
    public record Scope(String stack, String env) {
    }

    public FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker,
            String workflowInstanceId, String workflowStepId, Scope scope) {
        String stampStack = scope == null ? stackSlug : scope.stack();
        String stampEnv = scope == null ? env : scope.env();
        NodeMode current = mode.get();
        if (current == NodeMode.DISABLED) {
            return new FireResult(FireResult.Kind.NOT_ACCEPTING, null, dedupeKey);
        }
        boolean defer = current == NodeMode.TRIGGER_ONLY;
        boolean runNow;
        CircuitBreaker breaker = breakers.get(exp.id());
        boolean probe;
        synchronized (this) {
            if (!accepting) {
                return new FireResult(FireResult.Kind.NOT_ACCEPTING, null, dedupeKey);
            }
            if (!bypassBreaker && breaker != null && !breaker.allow(clock.instant())) {
                telemetry.count("trigger_rejected_by_breaker", "actor", definition.id(), "expectation", exp.id());
                return new FireResult(FireResult.Kind.REJECTED_BY_BREAKER, null, dedupeKey);
            }
            // allow() is only called under this lock and is the only way into HALF_OPEN, where it says
            // yes once: a yes in HALF_OPEN means this fire is the probe.
            probe = !bypassBreaker && breaker != null && breaker.state() == CircuitBreaker.State.HALF_OPEN;
            // Deferred episodes take no local slot; the full node that dispatches them applies its own.
            runNow = !defer && active.size() + reserved < maxConcurrent;
            if (!defer && !runNow && definition.overflow() == Overflow.DROP) {
                probeNotRun(probe, breaker);
                telemetry.count("episode_dropped", "actor", definition.id(), "expectation", exp.id());
                return new FireResult(FireResult.Kind.DROPPED, null, dedupeKey);
            }
            if (runNow) {
                reserved++;
            }
        }
        if (!exp.cooldown().isZero() && TriggerInfo.EVENT.equals(trigger.type())) {
            cooldownUntil.put(exp.id() + "|" + subjectOf(exp, trigger.payload()), clock.instant().plus(exp.cooldown()));
        }
        String id = UUID.randomUUID().toString();
        NewEpisode episode = new NewEpisode(id, definition.id(), exp.id(), definition.specRev(), trigger, dedupeKey,
                exp.maxAttempts(), exp.budget(), defer ? null : node, !runNow && !defer, stampStack, stampEnv, workflowInstanceId,
                workflowStepId);
        if (defer) {
            // Trigger-only: the row is created (UIs see it) with a request a full node will run;
            // the full node's runtime applies its own slots when it dispatches.
            boolean deferred;
            try {
                deferred = launcher.defer(episode);
            } catch (RuntimeException e) {
                probeNotRun(probe, breaker);
                throw e;
            }
            if (!deferred) {
                probeNotRun(probe, breaker);
                telemetry.count("episode_deduplicated", "actor", definition.id(), "expectation", exp.id());
                return new FireResult(FireResult.Kind.DUPLICATE, null, dedupeKey);
            }
            telemetry.count("episode_deferred", "actor", definition.id(), "expectation", exp.id());
            return new FireResult(FireResult.Kind.DEFERRED, id, dedupeKey);
        }
        boolean inserted;
        try {
            inserted = launcher.insert(episode);
        } catch (RuntimeException e) {
            release(runNow);
            probeNotRun(probe, breaker);
            throw e;
        }
        if (!inserted) {
            release(runNow);
            probeNotRun(probe, breaker);
            LOG.fine(() -> "Key " + dedupeKey + " is already taken: another node (or an earlier trigger) has it");
            telemetry.count("episode_deduplicated", "actor", definition.id(), "expectation", exp.id());
            return new FireResult(FireResult.Kind.DUPLICATE, null, dedupeKey);
        }
        telemetry.count("episode_created", "actor", definition.id(), "expectation", exp.id(), "trigger", trigger.type());
        if (runNow) {
            synchronized (this) {
                reserved--;
                active.add(id);
            }
            launcher.start(id, freshSnapshot(episode), false, null, () -> exited(id));
            return new FireResult(FireResult.Kind.STARTED, id, dedupeKey);
        }
        String shed = null;
        synchronized (this) {
            if (definition.overflow() == Overflow.SHED_OLDEST) {
                for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    if (!p.recovered() && !p.resume()) {
                        it.remove();
                        shed = p.episodeId();
                        break;
                    }
                }
            }
            queue.addLast(new Pending(id, false, null, false));
        }
        if (shed != null) {
            launcher.cancelQueued(shed);
            telemetry.count("episode_shed", "actor", definition.id());
        }
        drain();
        return new FireResult(FireResult.Kind.QUEUED, id, dedupeKey);
    }

    /** A probe that created no episode here will never finish here; see {@link CircuitBreaker#probeNotRun}. */
    private static void probeNotRun(boolean probe, CircuitBreaker breaker) {
        if (probe) {
            breaker.probeNotRun();
        }
    }

    private synchronized void release(boolean reservedSlot) {
        if (reservedSlot) {
            reserved--;
        }
    }

    private RunSnapshot freshSnapshot(NewEpisode e) {
        return new RunSnapshot(new EpisodeRef(e.id(), e.actorId(), e.expectationId(), e.dedupeKey(), e.sourceStack(),
                e.sourceEnv()), "running", e.trigger(), 1, e.maxAttempts(), e.budget(), false, 1, Optional.empty(),
                Optional.empty(), e.workflowInstanceId(), e.workflowStepId());
    }

    // ---- restarts ----------------------------------------------------------------------------

    /** Runs a recovered episode (with the claim recovery took) under this actor's slots; never dropped. */
    public void recover(String episodeId, HeldClaim handedClaim) {
        enqueue(new Pending(episodeId, true, handedClaim, true));
    }

    /** Resumes an episode whose approval or wait was resolved (deferred to a full node in trigger-only mode). */
    public void resume(String episodeId, String expectationId) {
        if (mode.get() == NodeMode.TRIGGER_ONLY) {
            launcher.deferExisting(episodeId, definition.id(), expectationId, true);
            return;
        }
        enqueue(new Pending(episodeId, true, null, true));
    }

    /** Runs an episode a trigger-only node deferred to this (full) node; never dropped. */
    public void dispatch(String episodeId, boolean resume) {
        enqueue(new Pending(episodeId, resume, null, true));
    }

    private void enqueue(Pending p) {
        Merge merge;
        synchronized (this) {
            merge = mergeDuplicate(p);
        }
        switch (merge) {
            case NEW -> {
                launcher.markQueued(p.episodeId());
                Merge late;
                synchronized (this) {
                    // the row was marked outside the lock: the same episode may have arrived meanwhile
                    late = mergeDuplicate(p);
                    if (late == Merge.NEW) {
                        queue.addLast(p);
                    }
                }
                if (late == Merge.LEASE_SURPLUS) {
                    releaseSurplus(p);
                }
                drain();
            }
            // the sweep cleared run_node when it claimed the row: say again that it waits here
            case LEASE_ADOPTED -> launcher.markQueued(p.episodeId());
            case LEASE_SURPLUS -> releaseSurplus(p);
            case ALREADY_HERE -> {
            }
        }
    }

    private enum Merge { NEW, ALREADY_HERE, LEASE_ADOPTED, LEASE_SURPLUS }

    /**
     * The same episode arriving twice on this node (the sweep recovers an episode this node still
     * has queued because its heartbeat came late; the poller and a resume race). A queued entry
     * without a lease takes the handed one over — its task would otherwise find the key busy (held
     * by this very node) and give up, leaving a lease nobody settles. Any other handed lease is
     * surplus: the caller releases it, or the heartbeat would renew it for ever.
     */
    private Merge mergeDuplicate(Pending p) {
        if (active.contains(p.episodeId())) {
            return p.handedClaim() == null ? Merge.ALREADY_HERE : Merge.LEASE_SURPLUS;
        }
        Pending queued = queue.stream().filter(q -> q.episodeId().equals(p.episodeId())).findFirst().orElse(null);
        if (queued == null) {
            return Merge.NEW;
        }
        if (p.handedClaim() == null) {
            return Merge.ALREADY_HERE;
        }
        if (queued.handedClaim() != null) {
            return Merge.LEASE_SURPLUS;
        }
        // rare (a late heartbeat): rebuild the queue with the entry, in its place, now holding the lease
        Pending adopted = new Pending(queued.episodeId(), true, p.handedClaim(), true);
        List<Pending> order = new ArrayList<>(queue);
        order.set(order.indexOf(queued), adopted);
        queue.clear();
        queue.addAll(order);
        return Merge.LEASE_ADOPTED;
    }

    private void releaseSurplus(Pending p) {
        launcher.releaseClaim(p.handedClaim(), "episode " + p.episodeId() + " is already queued or running on " + node);
    }

    /** The leases handed to episodes still waiting in this actor's queue (the heartbeat's audit). */
    public synchronized java.util.List<HeldClaim> queuedClaims() {
        return queue.stream().map(Pending::handedClaim).filter(java.util.Objects::nonNull).toList();
    }

    /** Removes an episode from the local queue (cancel before it started). */
    public synchronized boolean dequeue(String episodeId) {
        return queue.removeIf(p -> p.episodeId().equals(episodeId));
    }

    /** Called when a task ends, whatever the outcome: frees the slot and starts the next in line. */
    public void exited(String episodeId) {
        synchronized (this) {
            active.remove(episodeId);
        }
        drain();
    }

    private void drain() {
        while (true) {
            Pending next;
            synchronized (this) {
                if (!accepting || queue.isEmpty() || active.size() + reserved >= maxConcurrent) {
                    return;
                }
                next = queue.pollFirst();
                active.add(next.episodeId());
            }
            try {
                launcher.start(next.episodeId(), null, next.resume(), next.handedClaim(), () -> exited(next.episodeId()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not start queued episode " + next.episodeId() + "; recovery will pick it up", e);
                synchronized (this) {
                    active.remove(next.episodeId());
                }
                if (next.handedClaim() != null) {
                    launcher.releaseClaim(next.handedClaim(), "episode " + next.episodeId() + " could not start");
                }
            }
        }
    }

    /** Updates the breaker from a terminal event of one of this actor's episodes. */
    public void finished(EpisodeFinished event) {
        CircuitBreaker breaker = breakers.get(event.expectationId());
        if (breaker != null) {
            boolean success = "done".equals(event.status()) || "partially_failed".equals(event.status());
            breaker.record(success, clock.instant());
        }
    }

    /** Stops accepting triggers and cancels pending debounce timers (drain, undeploy). */
    public void stopAccepting() {
        accepting = false;
        debounces.values().forEach(f -> f.cancel(false));
        debounces.clear();
    }

    // ---- status for the console and API --------------------------------------------------------

    public synchronized int activeCount() {
        return active.size();
    }

    public synchronized int queuedCount() {
        return queue.size();
    }

    public String breakerState(String expectationId) {
        CircuitBreaker b = breakers.get(expectationId);
        return b == null ? "none" : b.state().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A budget to use when a row carries none (rows from before budgets were stored). */
    public Optional<Budget> budgetOf(String expectationId) {
        return definition.expectation(expectationId).map(ExpectationDefinition::budget);
    }

    Duration jitterMax() {
        return jitter.max();
    }
}
