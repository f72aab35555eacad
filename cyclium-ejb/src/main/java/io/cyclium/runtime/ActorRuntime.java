package io.cyclium.runtime;

import io.cyclium.telemetry.SpanAttributes;
import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.Overflow;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.Budget;
import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeIds;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.execution.EpisodeLauncher;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.problem.Problem;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.Tracing;
import io.cyclium.timing.Jitter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One actor on this node: admits triggers ({@link TriggerAdmission}), fires them — mode, circuit
 * breaker, slot or queue, the episode insert — and runs or queues the episodes ({@link SlotQueue}).
 * This state is per node and in memory; what must survive a crash is in the database.
 *
 * <p>The cluster-wide guarantee — one episode per trigger — does not come from here: every node's
 * runtime tries the insert and the unique index on active dedupe keys lets exactly one through.
 */
public final class ActorRuntime {

    private static final Logger LOG = Logger.getLogger(ActorRuntime.class.getName());

    /** What every actor runtime on a node shares: timers, clock, where the node stands, its mode for this actor. */
    public record Context(ScheduledExecutorService timers, Clock clock, Telemetry telemetry, String node, String stackSlug,
            String env, Jitter jitter, Supplier<NodeMode> mode, Tracing tracing) {

        /** Without traces (tests). */
        public Context(ScheduledExecutorService timers, Clock clock, Telemetry telemetry, String node, String stackSlug,
                String env, Jitter jitter, Supplier<NodeMode> mode) {
            this(timers, clock, telemetry, node, stackSlug, env, jitter, mode, Tracing.OFF);
        }
    }

    /**
     * The stack and env an episode is stamped with when a caller acts on another world than this
     * node's (seeding or inspecting another env from any node). The caller computes the dedupe
     * key for that env.
     */
    public record Scope(String stack, String env) {
    }

    private final ActorDefinition definition;
    private final EpisodeLauncher launcher;
    private final Context context;
    private final TriggerAdmission admission;
    private final SlotQueue slots;
    private final EpisodeIds ids;
    private final Map<String, CircuitBreaker> breakers = new HashMap<>();
    private volatile boolean accepting = true;
    private volatile PauseCheck pauses = PauseCheck.NONE;
    private volatile ConcurrencyGate gate = ConcurrencyGate.NONE;
    /** The node's cluster-wide gate, kept for a workflow step with a key of its own on an actor that declares nothing. */
    private volatile ConcurrencyGate clusterGate = ConcurrencyGate.NONE;
    private volatile Duration recheckEvery = Duration.ofSeconds(1);
    private volatile Duration agingEvery = Duration.ZERO;
    private volatile java.util.concurrent.ScheduledFuture<?> recheck;
    private volatile ConcurrencyKeys keys;

    public ActorRuntime(ActorDefinition definition, int maxConcurrent, EpisodeLauncher launcher, Context context) {
        this.definition = definition;
        this.launcher = launcher;
        this.context = context;
        this.admission = new TriggerAdmission(definition, context.env(), context.clock(), context.telemetry());
        this.ids = new EpisodeIds(context.clock());
        this.slots = new SlotQueue(maxConcurrent, launcher, context.node(), definition.id());
        this.keys = new ConcurrencyKeys(ConcurrencyKeys.BY_CONSTRUCTOR, context.telemetry());
        for (ExpectationDefinition e : definition.expectations()) {
            if (e.hasBreaker()) {
                breakers.put(e.id(), new CircuitBreaker(e.breakerThreshold(), e.breakerHalfOpenAfter()));
            }
        }
        // read from memory at scrape time; a runtime built again (redeploy) takes the series over
        context.telemetry().gauge("episode_queued", this::queuedCount, "actor", definition.id());
        context.telemetry().gauge("episode_running", this::activeCount, "actor", definition.id());
        context.telemetry().gauge("episode_waiting", this::heldCount, "actor", definition.id(), "reason", "pause");
    }

    public ActorDefinition definition() {
        return definition;
    }

    /**
     * What pauses this actor's work (the node's {@link Pauses}); a fresh trigger of a paused
     * actor or expectation is stored and queued (never dropped, whatever the overflow policy), and
     * the queue starts nothing it holds. Running episodes are not touched.
     */
    public ActorRuntime pausedBy(PauseCheck check) {
        this.pauses = check;
        slots.pausedBy(check);
        return this;
    }

    /** Where the key functions of its expectations come from ({@code @Expectation(concurrencyKeyFunction)}): CDI beans. */
    ActorRuntime keyFunctionsFrom(ConcurrencyKeys.Beans beans) {
        this.keys = new ConcurrencyKeys(beans, context.telemetry());
        return this;
    }

    /**
     * Turns on this actor's flow control when it declares any (a cluster-wide limit, a
     * concurrency key, priorities; nothing changes otherwise): queued work starts by fairness over
     * keys and priority aged by {@code aging}, work under a limit takes a slot through {@code gate}
     * first, and every {@code recheck} the queue tries again what waits for a limit (a slot freed on
     * another node tells this one nothing).
     */
    public ActorRuntime limitedBy(ConcurrencyGate gate, Duration recheck, Duration aging) {
        slots.aging(context.clock(), aging);
        this.clusterGate = gate;
        this.recheckEvery = recheck;
        this.agingEvery = aging;
        if (!definition.flowControlled()) {
            return this;
        }
        boolean limits = definition.clusterMaxConcurrent() > 0 || definition.rateLimited()
                || definition.expectations().stream().anyMatch(e -> e.flow().limited() || e.flow().rateLimited());
        return flowControlled(limits);
    }

    /**
     * The first workflow step with a key of its own fired or restarted here on an actor that
     * declares no flow control: from now on its queue is flow-controlled like a declared one's (a
     * keyed entry at the head of a plain FIFO would be tried again and again in one pass). Once per
     * runtime. What tells it is the episode itself (the fire's request, the restarted row's
     * step_key columns), never the workflow definitions: a node need not have read those.
     */
    private void flowControlForStepKeys() {
        synchronized (this) {
            if (clusterGate == ConcurrencyGate.NONE) {
                return;
            }
            if (gate == ConcurrencyGate.NONE) {
                flowControlled(true);
            } else if (recheck == null) {
                armRecheck(Math.max(1, recheckEvery.toMillis())); // flow-controlled for priorities only until now
            }
        }
    }

    /**
     * Where the queue's hand-over drains run (after a fresh limited episode queued): {@code executor}
     * instead of the node's timers. A managed executor captures the submitter's context for every
     * task, and Payara's capture looks its providers up with a ServiceLoader over every jar of the
     * application: 13 % of a node's CPU with 20 firing threads under a limit, one lookup per hand-over.
     * A pool on the managed thread factory carries the context its threads were made with.
     */
    public ActorRuntime handingOffTo(java.util.concurrent.Executor executor) {
        this.handOff = executor;
        return this;
    }

    private volatile java.util.concurrent.Executor handOff;

    private void handOver(Runnable pass) {
        java.util.concurrent.Executor executor = handOff;
        if (executor != null) {
            try {
                executor.execute(pass);
                return;
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the node is going down: the timers take the last ones
            }
        }
        context.timers().execute(pass);
    }

    private ActorRuntime flowControlled(boolean limits) {
        this.gate = clusterGate;
        slots.flowControlled(clusterGate, context.clock(), agingEvery, task -> handOver(() -> BackgroundPass.run("admission",
                new String[] {"actor", definition.id()}, LOG, context.telemetry(),
                () -> "Admission of actor " + definition.id() + " failed; the next pass tries again", task)));
        if (limits) {
            armRecheck(Math.max(1, recheckEvery.toMillis()));
        }
        context.telemetry().gauge("episode_waiting", slots::waitingForLimitCount, "actor", definition.id(), "reason",
                "concurrency_limit");
        context.telemetry().gauge("episode_waiting", slots::waitingForRateCount, "actor", definition.id(), "reason",
                "rate_limit");
        return this;
    }

    /**
     * The pass that tries again what waits for a cluster-wide limit: a one-shot timer that arms the
     * next when it ends (so a slow pass never overlaps the next), until the runtime stops.
     */
    private void armRecheck(long every) {
        if (!accepting) {
            return;
        }
        recheck = context.timers().schedule(() -> {
            BackgroundPass.run("admission", new String[] {"actor", definition.id()}, LOG, context.telemetry(),
                    () -> "Admission of actor " + definition.id() + " failed; the next pass tries again", () -> {
                        if (slots.waitingForLimits()) {
                            slots.drain();
                        }
                    });
            armRecheck(every);
        }, every, TimeUnit.MILLISECONDS);
    }

    /** The cluster-wide limits an episode of {@code exp} with concurrency key {@code key} must take a slot of. */
    private List<ConcurrencySlot> limitsOf(ExpectationDefinition exp, String key) {
        List<ConcurrencySlot> limits = new ArrayList<>(2);
        if (key != null && exp.flow().limited()) {
            limits.add(ConcurrencySlot.ofKey(definition.id(), exp.id(), key, exp.flow().concurrencyLimit()));
        }
        if (definition.clusterMaxConcurrent() > 0) {
            limits.add(ConcurrencySlot.ofActor(definition.id(), definition.clusterMaxConcurrent()));
        }
        return limits;
    }

    /**
     * The cluster-wide limits an episode of {@code expectationId} with {@code key} waits for (empty:
     * none declared, or no such expectation here): what the console explains a wait with.
     */
    public List<ConcurrencySlot> limitsOf(String expectationId, String key) {
        return definition.expectation(expectationId).map(e -> limitsOf(e, key)).orElse(List.of());
    }

    /**
     * The rate limits the first start of an episode of {@code exp} with concurrency key {@code key}
     * takes a token of: the expectation's bucket, or the key's own ({@code rateLimitPerKey}).
     */
    private List<RateLimit> ratesOf(ExpectationDefinition exp, String key) {
        List<RateLimit> rates = new ArrayList<>(2);
        if (exp.flow().ratePerKey()) {
            rates.add(RateLimit.ofKey(definition.id(), exp.id(), key == null ? io.cyclium.actor.FlowControl.NO_KEY : key,
                    exp.flow().rateLimit(), exp.flow().ratePeriod()));
        } else if (exp.flow().rateLimited()) {
            rates.add(RateLimit.ofExpectation(definition.id(), exp.id(), exp.flow().rateLimit(), exp.flow().ratePeriod()));
        }
        if (definition.rateLimited()) {
            rates.add(RateLimit.ofActor(definition.id(), definition.rateLimit(), definition.ratePeriod()));
        }
        return rates;
    }

    /**
     * A restart, resume or dispatch of an episode of {@code expectationId}: its concurrency limits
     * (the key read from its row when it has one) and, for a first start (a trigger-only node's
     * dispatch), its rate limits; a run that continues takes no token again.
     */
    private SlotQueue.Pending restartOf(SlotQueue.Pending p) {
        if (clusterGate == ConcurrencyGate.NONE || p.expectationId() == null) {
            return p;
        }
        Optional<ExpectationDefinition> exp = definition.expectation(p.expectationId());
        if (exp.isEmpty()) {
            return p;
        }
        // one read of the row for the key and a workflow step's own limit, on any actor: any episode
        // may be a keyed step's, and the row says so itself — this node may have fired no keyed
        // step and read no workflow definition since boot, and must still take the step's slot again
        ConcurrencyGate.StoredKeys stored = clusterGate.keysOf(p.episodeId());
        if (stored.stepSlot() != null) {
            flowControlForStepKeys();
        }
        if (gate == ConcurrencyGate.NONE) {
            return p; // nothing declared here and no step key on the row: a plain restart
        }
        if (!definition.limited(exp.get()) && !definition.rateLimited(exp.get()) && !exp.get().flow().prioritized()
                && stored.stepSlot() == null) {
            return p;
        }
        String key = stored.key();
        if (key == null && exp.get().flow().keyed()) {
            key = io.cyclium.actor.FlowControl.NO_KEY;
        }
        return p.limitedBy(ConcurrencySlot.stepFirst(stored.stepSlot(), limitsOf(exp.get(), key)),
                p.resume() ? List.of() : ratesOf(exp.get(), key), exp.get().flow().priority());
    }

    /** A workflow step's own limit as a slot (null: none). */
    private static ConcurrencySlot stepSlot(io.cyclium.episode.NewEpisode.StepKey k) {
        return k == null ? null : new ConcurrencySlot(k.scope(), k.key(), Math.max(1, k.limit()));
    }

    /** Starts what waits in the queue and is no longer held (a resume). */
    public void wake() {
        slots.drain();
    }

    public int maxConcurrent() {
        return slots.maxConcurrent();
    }

    // ---- triggers --------------------------------------------------------------------------

    /**
     * Matches an event against this actor's expectations and stores what it asks for before it
     * returns: their episodes, or the subjects' debounced triggers. Returns each match with what
     * became of it (stored, coalesced, debounced, or refused and why). Throws a 503
     * {@link Problem} when this runtime has stopped taking triggers (the node is draining): the
     * event was not stored and must go to another node. A database failure propagates as it is.
     */
    public List<Match> admit(CycliumEvent event) {
        Map<String, TriggerAdmission.Admitted> admitted = admission.onEvent(event, new TriggerAdmission.Firing() {
            @Override
            public FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey) {
                return ActorRuntime.this.fire(exp, trigger, dedupeKey, false);
            }

            @Override
            public Optional<FireResult> debounce(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey,
                    String subject) {
                return ActorRuntime.this.debounce(exp, trigger, dedupeKey, subject);
            }
        });
        List<Match> matches = new ArrayList<>(admitted.size());
        admitted.forEach((expectation, a) -> matches.add(match(event, expectation, a)));
        return matches;
    }

    /** {@link #admit}, answering only expectation → dedupe key of each match. */
    public Map<String, String> onEvent(CycliumEvent event) {
        Map<String, String> keys = new LinkedHashMap<>();
        admit(event).forEach(m -> keys.put(m.expectation(), m.dedupeKey()));
        return keys;
    }

    private Match match(CycliumEvent event, String expectation, TriggerAdmission.Admitted a) {
        String actor = definition.id();
        FireResult r = a.result();
        if (r == null) {
            return Match.ofActor(actor, expectation, a.dedupeKey(), a.held(),
                    a.held() == Outcome.COOLING_DOWN ? "cooldown" : null, null, a.retryAfter());
        }
        return switch (r.kind()) {
            case STARTED, QUEUED, DEFERRED -> Match.ofActor(actor, expectation, a.dedupeKey(), Outcome.STORED, null,
                    r.episodeId(), null);
            case DUPLICATE -> Match.ofActor(actor, expectation, a.dedupeKey(), Outcome.COALESCED, "duplicate", null, null);
            case DROPPED -> Match.ofActor(actor, expectation, a.dedupeKey(), Outcome.DROPPED, "overflow", null, null);
            case REJECTED_BY_BREAKER -> Match.ofActor(actor, expectation, a.dedupeKey(), Outcome.DROPPED, "breaker_open",
                    null, breakers.get(expectation).untilHalfOpen(context.clock().instant()));
            case NOT_ACCEPTING -> {
                if (!accepting) {
                    throw Problem.unavailable("node " + context.node() + " is shutting down and takes no new triggers;"
                            + " event " + event.type() + " was not stored for actor " + actor + ": send it to another node");
                }
                yield Match.ofActor(actor, expectation, a.dedupeKey(), Outcome.DISABLED, "disabled", null, null);
            }
        };
    }

    /**
     * Stores the subject's debounced trigger (see {@link EpisodeLauncher#debounce}), unless this node
     * takes no triggers for the actor: then the refusal a fire would have had.
     */
    private Optional<FireResult> debounce(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, String subject) {
        if (context.mode().get() == NodeMode.DISABLED || !accepting) {
            return Optional.of(new FireResult(FireResult.Kind.NOT_ACCEPTING, null, dedupeKey));
        }
        String stack = context.stackSlug();
        String env = context.env();
        String id = CanonicalJson.sha256Hex(String.join("\n", definition.id(), exp.id(), String.valueOf(stack),
                String.valueOf(env), subject));
        String shownSubject = subject.length() > 255 ? subject.substring(0, 255) : subject;
        // the event's span (current here, at the intake) travels with the row to the node that fires it
        launcher.debounce(new DebouncedTrigger(id, definition.id(), exp.id(), shownSubject, stack, env, trigger, dedupeKey,
                exp.debounce(), 0, null, context.tracing().current()));
        count("trigger_debounced", exp);
        return Optional.empty();
    }

    /**
     * Fires a stored debounced trigger whose window has closed, stamped with the stack and env of
     * the node that took its event; in the caller's transaction (the one that took the row), so
     * the episode is stored exactly when the row is gone. Empty when this actor has no such
     * expectation (a row from an older deployment).
     */
    public Optional<FireResult> fireDebounced(DebouncedTrigger row) {
        return definition.expectation(row.expectationId()).map(exp -> fire(FireRequest.of(exp, row.trigger(),
                row.dedupeKey(), false).in(new Scope(row.sourceStack(), row.sourceEnv())).tracedUnder(row.traceParent())));
    }

    /** Fires after a random 0..jitter delay so the fastest node does not win every key. */
    public void fireWithJitter(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker) {
        Telemetry telemetry = context.telemetry();
        context.timers().schedule(() -> BackgroundPass.run("trigger",
                new String[] {"actor", definition.id(), "expectation", exp.id()}, LOG, telemetry,
                () -> "Trigger " + trigger.type() + " for " + exp.qualifiedId() + " (key " + dedupeKey
                        + ") failed; it will fire again on the next trigger",
                () -> fire(exp, trigger, dedupeKey, bypassBreaker)), context.jitter().nextMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@link #fire(FireRequest)} on this node's scope, for no workflow. */
    public FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker) {
        return fire(FireRequest.of(exp, trigger, dedupeKey, bypassBreaker));
    }

    /**
     * Creates the episode for one trigger and runs, queues or defers it. Duplicates (key taken) are
     * the normal result on all but one node.
     */
    public FireResult fire(FireRequest request) {
        ExpectationDefinition exp = request.expectation();
        String dedupeKey = request.dedupeKey();
        NodeMode mode = context.mode().get();
        if (mode == NodeMode.DISABLED) {
            return new FireResult(FireResult.Kind.NOT_ACCEPTING, null, dedupeKey);
        }
        boolean defer = mode == NodeMode.TRIGGER_ONLY;
        if (request.stepKey() != null && !defer) {
            flowControlForStepKeys();
        }
        CircuitBreaker breaker = breakers.get(exp.id());
        boolean probe;
        boolean runNow;
        boolean admitOnInsert;
        boolean mayPass;
        synchronized (this) {
            if (!accepting) {
                return new FireResult(FireResult.Kind.NOT_ACCEPTING, null, dedupeKey);
            }
            if (!request.bypassBreaker() && breaker != null && !breaker.allow(context.clock().instant())) {
                count("trigger_rejected_by_breaker", exp);
                return new FireResult(FireResult.Kind.REJECTED_BY_BREAKER, null, dedupeKey);
            }
            // allow() is only called under this lock and is the only way into HALF_OPEN, where it says
            // yes once: a yes in HALF_OPEN means this fire is the probe.
            probe = !request.bypassBreaker() && breaker != null && breaker.state() == CircuitBreaker.State.HALF_OPEN;
            // Deferred episodes take no local slot; the full node that dispatches them applies its own.
            // A paused one is stored and queued: the queue holds it until the resume.
            boolean paused = pauses.holds(definition.id(), exp.id());
            // work under a cluster-wide limit always goes through the queue, which takes its slot on
            // the database first; it waits there (never dropped) while the limit is full
            boolean limited = !defer && gate != ConcurrencyGate.NONE && (definition.limited(exp) || definition.rateLimited(exp)
                    || request.stepKey() != null);
            runNow = !defer && !paused && !limited && slots.tryReserve();
            // with nothing waiting here, a limited episode takes its slots in the transaction that
            // stores it (no transaction of its own) and starts at once when they are free
            admitOnInsert = limited && !paused && slots.tryReserveIdle();
            mayPass = limited && !paused && !admitOnInsert;
            if (!defer && !runNow && !paused && !limited && definition.overflow() == Overflow.DROP) {
                probeNotRun(probe, breaker);
                count("episode_dropped", exp);
                return new FireResult(FireResult.Kind.DROPPED, null, dedupeKey);
            }
        }
        Runnable uncool = admission.fired(exp, request.trigger());
        String concurrencyKey = keys.keyOf(definition.id(), exp, request.trigger());
        int priority = priorityOf(request);
        Admission admitting = admitOnInsert || mayPass ? new Admission(exp, request.stepKey(), concurrencyKey, priority) : null;
        if (mayPass) {
            // work is queued here, yet a local slot is free: this episode may take it when it passes
            // nothing queued for its limits (see SlotQueue#tryReservePassing)
            admitOnInsert = slots.tryReservePassing(admitting.limits, admitting.rates);
        }
        NewEpisode episode = newEpisode(request, defer, runNow || admitOnInsert, concurrencyKey, priority);
        if (defer) {
            return defer(episode, exp, probe, breaker, uncool);
        }
        return insert(episode, exp, runNow, admitOnInsert ? admitting : null, probe, breaker, uncool);
    }

    /**
     * A fresh limited episode's cluster-wide slots and rate tokens, taken in its storing
     * transaction ({@link ConcurrencyGate#admitIn}); {@code admitted} is the answer of the run
     * that committed (a failed shared batch runs the store again: each run overwrites it).
     */
    private final class Admission implements io.cyclium.execution.InsertAdmission {
        final List<ConcurrencySlot> limits;
        final List<RateLimit> rates;
        final int priority;
        volatile boolean admitted;

        Admission(ExpectationDefinition exp, NewEpisode.StepKey stepKey, String concurrencyKey, int priority) {
            this.limits = ConcurrencySlot.stepFirst(stepSlot(stepKey), limitsOf(exp, concurrencyKey));
            this.rates = ratesOf(exp, concurrencyKey);
            this.priority = priority;
        }

        @Override
        public boolean admit(jakarta.persistence.EntityManager em, String episodeId, boolean again) {
            admitted = gate.admitIn(em, episodeId, limits, rates, !again) == ConcurrencyGate.ADMITTED;
            return admitted;
        }
    }

    private NewEpisode newEpisode(FireRequest request, boolean defer, boolean runNow, String concurrencyKey, int priority) {
        ExpectationDefinition exp = request.expectation();
        Scope scope = request.scope();
        return new NewEpisode(ids.next(), definition.id(), exp.id(), definition.specRev(),
                request.trigger(), request.dedupeKey(), exp.maxAttempts(), exp.budget(), defer ? null : context.node(),
                !runNow && !defer, scope == null ? context.stackSlug() : scope.stack(),
                scope == null ? context.env() : scope.env(), request.workflowInstanceId(), request.workflowStepId(),
                traceParent(request), exp.version(), concurrencyKey, priority, request.stepKey());
    }

    /** The trigger's own priority (a manual start's, a workflow step's), else the expectation's for its payload. */
    private static int priorityOf(FireRequest request) {
        if (request.priority() != null) {
            return request.priority();
        }
        jakarta.json.JsonObject payload = request.trigger().payload() == null ? jakarta.json.JsonValue.EMPTY_JSON_OBJECT
                : request.trigger().payload();
        return request.expectation().flow().priorityOf(payload);
    }

    /**
     * The span the episode's runs start under: the caller's (a workflow instance's), else the one
     * current here (an event's intake), else a trigger span of its own; null when tracing is off.
     */
    private String traceParent(FireRequest request) {
        if (request.traceParent() != null || !context.tracing().on()) {
            return request.traceParent();
        }
        return context.tracing().parentForNewRow("cyclium trigger " + definition.id(), SpanAttributes.ACTOR, definition.id(),
                SpanAttributes.EXPECTATION, request.expectation().id(), SpanAttributes.TRIGGER, request.trigger().type());
    }

    /** Trigger-only: the row is created (UIs see it) with a request a full node will run. */
    private FireResult defer(NewEpisode episode, ExpectationDefinition exp, boolean probe, CircuitBreaker breaker,
            Runnable uncool) {
        // counted, or its cooldown given back, once its transaction ended (host code's may be open)
        Consumer<Boolean> settled = ours -> {
            if (ours) {
                count("episode_deferred", exp);
            } else {
                uncool.run();
            }
        };
        boolean deferred;
        try {
            deferred = launcher.defer(episode, settled);
        } catch (RuntimeException e) {
            probeNotRun(probe, breaker);
            throw e;
        }
        if (!deferred) {
            probeNotRun(probe, breaker);
            count("episode_deduplicated", exp);
            return new FireResult(FireResult.Kind.DUPLICATE, null, episode.dedupeKey());
        }
        return new FireResult(FireResult.Kind.DEFERRED, episode.id(), episode.dedupeKey());
    }

    private FireResult insert(NewEpisode episode, ExpectationDefinition exp, boolean runNow, Admission admitting,
            boolean probe, CircuitBreaker breaker, Runnable uncool) {
        // Everything after the insert waits for its transaction to settle (host code's, when it fired
        // the trigger inside one): a task started earlier would not find the row. settle() runs once.
        AtomicBoolean settledOnce = new AtomicBoolean();
        Consumer<Boolean> settle = ours -> {
            if (settledOnce.compareAndSet(false, true)) {
                settle(episode, runNow, admitting, ours, probe, breaker, uncool);
            }
        };
        boolean inserted;
        try {
            inserted = admitting == null ? launcher.insert(episode, settle) : launcher.insert(episode, admitting, settle);
        } catch (RuntimeException e) {
            settle.accept(false);
            throw e;
        }
        if (!inserted) {
            LOG.fine(() -> "Key " + episode.dedupeKey() + " is already taken: another node (or an earlier trigger) has it");
            count("episode_deduplicated", exp);
            return new FireResult(FireResult.Kind.DUPLICATE, null, episode.dedupeKey());
        }
        boolean started = runNow || admitting != null && admitting.admitted;
        return new FireResult(started ? FireResult.Kind.STARTED : FireResult.Kind.QUEUED, episode.id(), episode.dedupeKey());
    }

    /**
     * The insert's transaction ended: run or queue the committed episode, or give the slot (and
     * the subject's cooldown) back. Counted as created only here, once committed: an insert rolled
     * back with its transaction (host code's, or a batch of events sent again) created nothing.
     */
    private void settle(NewEpisode episode, boolean runNow, Admission admitting, boolean ours, boolean probe,
            CircuitBreaker breaker, Runnable uncool) {
        if (!ours) {
            if (runNow || admitting != null) {
                slots.unreserve();
            }
            if (admitting != null) {
                gate.notStored(episode.id());
            }
            probeNotRun(probe, breaker);
            uncool.run();
            return;
        }
        context.telemetry().count("episode_stored", "actor", definition.id(), "expectation", episode.expectationId(),
                "trigger", episode.trigger().type());
        BackgroundPass.run("episode_start", new String[] {"actor", definition.id()}, LOG, context.telemetry(),
                () -> "Episode " + episode.id() + " is stored but could not be started here; the recovery sweep will run it",
                () -> {
                    if (runNow) {
                        slots.startReserved(episode.id(), freshSnapshot(episode));
                        return;
                    }
                    if (admitting != null) {
                        if (admitting.admitted) {
                            slots.startAdmitted(episode.id(), freshSnapshot(episode), admitting.limits, admitting.rates,
                                    admitting.priority);
                        } else {
                            slots.queueReserved(episode.id(), freshSnapshot(episode), admitting.limits, admitting.rates,
                                    admitting.priority);
                        }
                        return;
                    }
                    // paused work is kept whole: nothing is shed to make room while a pause holds it
                    Optional<ExpectationDefinition> exp = gate == ConcurrencyGate.NONE ? Optional.empty()
                            : definition.expectation(episode.expectationId());
                    List<ConcurrencySlot> limits = ConcurrencySlot.stepFirst(stepSlot(episode.stepKey()),
                            exp.map(e -> limitsOf(e, episode.concurrencyKey())).orElse(List.of()));
                    List<RateLimit> rates = exp.map(e -> ratesOf(e, episode.concurrencyKey())).orElse(List.of());
                    String shed = slots.enqueueFresh(episode.id(), freshSnapshot(episode),
                            definition.overflow() == Overflow.SHED_OLDEST
                                    && !pauses.holds(definition.id(), episode.expectationId()), limits, rates,
                            episode.priority());
                    if (shed != null) {
                        launcher.cancelQueued(shed);
                        context.telemetry().count("episode_shed", "actor", definition.id());
                    }
                });
    }

    /** A probe that created no episode here will never finish here; see {@link CircuitBreaker#probeNotRun}. */
    private static void probeNotRun(boolean probe, CircuitBreaker breaker) {
        if (probe) {
            breaker.probeNotRun();
        }
    }

    private void count(String name, ExpectationDefinition exp) {
        context.telemetry().count(name, "actor", definition.id(), "expectation", exp.id());
    }

    private static RunSnapshot freshSnapshot(NewEpisode e) {
        return new RunSnapshot(new EpisodeRef(e.id(), e.actorId(), e.expectationId(), e.dedupeKey(), e.sourceStack(),
                e.sourceEnv()), "running", e.trigger(), 1, e.maxAttempts(), e.budget(), false, 1, Optional.empty(),
                Optional.empty(), e.workflowInstanceId(), e.workflowStepId(), e.traceParent());
    }

    // ---- restarts ----------------------------------------------------------------------------

    /** Runs a recovered episode (with the claim recovery took) under this actor's slots; never dropped. */
    public void recover(String episodeId, HeldClaim handedClaim) {
        recover(episodeId, handedClaim, null);
    }

    /** {@link #recover(String, HeldClaim)} naming its expectation (null: unknown; only an actor pause holds it then). */
    public void recover(String episodeId, HeldClaim handedClaim, String expectationId) {
        slots.enqueue(restartOf(new SlotQueue.Pending(episodeId, true, handedClaim, true, expectationId)));
    }

    /** Resumes an episode whose approval or wait was resolved (deferred to a full node in trigger-only mode). */
    public void resume(String episodeId, String expectationId) {
        if (context.mode().get() == NodeMode.TRIGGER_ONLY) {
            launcher.deferExisting(episodeId, definition.id(), expectationId, true);
            return;
        }
        slots.enqueue(restartOf(new SlotQueue.Pending(episodeId, true, null, true, expectationId)));
    }

    /** Runs an episode a trigger-only node deferred to this (full) node; never dropped. */
    public void dispatch(String episodeId, boolean resume) {
        dispatch(episodeId, resume, null);
    }

    /** {@link #dispatch(String, boolean)} naming its expectation (null: unknown; only an actor pause holds it then). */
    public void dispatch(String episodeId, boolean resume, String expectationId) {
        slots.enqueue(restartOf(new SlotQueue.Pending(episodeId, resume, null, true, expectationId)));
    }

    /** The leases handed to episodes still waiting in this actor's queue (the heartbeat's audit). */
    /** Adds the episodes this actor's slots run or its queue holds on this node. */
    public void heldInto(java.util.Set<String> into) {
        slots.heldInto(into);
    }

    public List<HeldClaim> queuedClaims() {
        return slots.queuedClaims();
    }

    /** Removes an episode from the local queue (cancel before it started). */
    public boolean dequeue(String episodeId) {
        boolean removed = slots.dequeue(episodeId);
        if (removed) {
            launcher.dropFirstLease(episodeId, "episode " + episodeId + " was canceled in the queue");
        }
        return removed;
    }

    /** Called when a task ends, whatever the outcome: frees the slot and starts the next in line. */
    public void exited(String episodeId) {
        slots.exited(episodeId);
    }

    /** Updates the breaker from a terminal event of one of this actor's episodes. */
    public void finished(EpisodeFinished event) {
        CircuitBreaker breaker = breakers.get(event.expectationId());
        if (breaker != null) {
            boolean success = "done".equals(event.status()) || "partially_failed".equals(event.status());
            breaker.record(success, context.clock().instant());
        }
    }

    /** Stops accepting triggers (drain, undeploy); debounced triggers stay stored for any node to fire. */
    public void stopAccepting() {
        synchronized (this) {
            accepting = false;
        }
        java.util.concurrent.ScheduledFuture<?> r = recheck;
        if (r != null) {
            r.cancel(false);
        }
        slots.stop();
    }

    // ---- status for the console and API --------------------------------------------------------

    public int activeCount() {
        return slots.activeCount();
    }

    public int queuedCount() {
        return slots.queuedCount();
    }

    /** Queued here and waiting for a cluster-wide limit that was full at their last try. */
    public int waitingForLimitCount() {
        return slots.waitingForLimitCount();
    }

    /** Queued here and waiting for a rate limit's next token. */
    public int waitingForRateCount() {
        return slots.waitingForRateCount();
    }

    /**
     * The rate limits a first start of an episode of {@code expectationId} with concurrency key
     * {@code key} takes a token of (empty: none declared): what the console explains a wait with.
     */
    public List<RateLimit> ratesOf(String expectationId, String key) {
        return definition.expectation(expectationId).map(e -> ratesOf(e, key)).orElse(List.of());
    }

    /** Queued here and held back by a pause. */
    public int heldCount() {
        return slots.heldCount();
    }

    /** Whether a pause holds this actor as a whole now. */
    public boolean paused() {
        return pauses.holds(definition.id(), null);
    }

    /** Whether a pause holds this expectation now (itself, or its actor). */
    public boolean paused(String expectationId) {
        return pauses.holds(definition.id(), expectationId);
    }

    public String breakerState(String expectationId) {
        CircuitBreaker b = breakers.get(expectationId);
        return b == null ? "none" : b.state().name().toLowerCase(Locale.ROOT);
    }

    /** A budget to use when a row carries none (rows from before budgets were stored). */
    public Optional<Budget> budgetOf(String expectationId) {
        return definition.expectation(expectationId).map(ExpectationDefinition::budget);
    }
}
