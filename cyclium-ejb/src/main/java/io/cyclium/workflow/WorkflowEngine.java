package io.cyclium.workflow;

import io.cyclium.audit.PendingAudit;
import io.cyclium.store.Jsons;
import jakarta.persistence.EntityManager;
import io.cyclium.telemetry.SpanAttributes;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.DeadlockRetry;
import io.cyclium.store.GroupCommit;
import io.cyclium.store.RunAgain;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.TraceSpan;
import io.cyclium.telemetry.Tracing;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Drives workflow instances: starts them, queues steps whose dependencies are done, reacts to the
 * terminal events of step episodes, retries failed steps when due, and reconciles what a node that
 * was down (or an event nobody heard) left behind.
 *
 * <p>Nothing here is held in memory between calls: every decision is read from the database and
 * every change is a guarded UPDATE in {@link WorkflowStore} that exactly one engine wins. Engines on
 * all nodes may therefore run any method at any time — two engines handling the same finished
 * event, a retry claimed by two timers, a reconcile racing a late event — and each transition
 * still happens once; a step attempt's episode has the dedupe key
 * {@code workflow:<instance>:<step>:<attempt>}, so even two launches of one attempt start one episode.
 *
 * <p>A step runs once every step it depends on is completed or failed for good while not critical.
 * A critical step failed for good applies its policy: abort (the instance fails, its running steps
 * are asked to cancel) or pause (the instance is blocked until an operator resumes it or retries
 * the step). The instance completes when every scheduled step has finished for good and no
 * critical one failed.
 */
public final class WorkflowEngine {

    private static final Logger LOG = Logger.getLogger(WorkflowEngine.class.getName());

    /** What an instance is started with. {@code subject} null = from the definition's subject key. */
    public record Start(JsonObject payload, String subject, String outcome, String stack, String env, String cause) {
    }

    private final Tx tx;
    private final WorkflowStore store;
    private final WorkflowQueries queries;
    private final Function<String, Optional<WorkflowDefinition>> definitions;
    private final StepLauncher launcher;
    private final Clock clock;
    private final Telemetry telemetry;
    private final DoubleSupplier random;
    private volatile Tracing tracing = Tracing.OFF;
    private volatile BiFunction<String, Long, Optional<WorkflowDefinition>> versions;
    /** Told of every step retry this engine stores, with its backoff (the node's retry alarm). */
    private volatile Consumer<Duration> retryStored = in -> { };
    private volatile java.util.function.Predicate<String> paused = workflow -> false;
    /** Where a start of one instance takes a seat on PostgreSQL (the node's group commit); null: a transaction of its own. */
    private volatile Tx startSeats;
    /** Per reconcile scope, the id the next pass continues after (see {@link #nextPage}). */
    private final Map<String, String> reconcileFrom = new ConcurrentHashMap<>();
    /**
     * This engine works inside one step's terminal write, which holds the instance's row since
     * before it read it ({@link #finishInCommit}): what it read of the instance cannot change
     * until it commits, so it decides on what it read and wrote without reading it again, and a
     * launch needs no hold of its own.
     */
    private boolean instanceHeld;

    public WorkflowEngine(Tx tx, WorkflowStore store, WorkflowQueries queries,
            Function<String, Optional<WorkflowDefinition>> definitions, StepLauncher launcher, Clock clock,
            Telemetry telemetry, DoubleSupplier random) {
        this.tx = tx;
        this.store = store;
        this.queries = queries;
        this.definitions = definitions;
        this.launcher = launcher;
        this.clock = clock;
        this.telemetry = telemetry;
        this.random = random;
    }

    /** Who hears of each step retry stored here, once it is committed (this node's timer, to ring when it is due). */
    public void onRetryStored(Consumer<Duration> listener) {
        this.retryStored = listener;
    }

    /**
     * Which workflows are paused (the node's copy of the pauses table). A paused workflow's ready
     * steps are queued without an episode; its instances stay in flight and its running step
     * episodes finish. After the resume the reconcile that follows every recovery sweep launches
     * them ({@link #attachOrLaunch}), on whichever node runs it first.
     */
    public WorkflowEngine pausedBy(java.util.function.Predicate<String> paused) {
        this.paused = paused;
        return this;
    }

    /**
     * A start of one instance takes a seat in the shared transactions of {@code batch} (the node's
     * group commit, where the episodes' and the steps' terminal writes commit) instead of a
     * transaction of its own — on PostgreSQL only. There its refusal (the subject has an instance
     * in flight) is the instance's {@code INSERT … ON CONFLICT DO NOTHING} changing no row, before
     * anything of it was written, so it leaves the shared transaction usable and the other writes
     * of the batch untouched; and its first steps' launch is two statements. Elsewhere the refusal
     * is a unique violation caught on the connection (H2) or a second read (MariaDB), and the launch
     * a dozen statements on the batch's single writer: a transaction of its own. A list of
     * instances keeps its one transaction everywhere (all of them or none: one refused rolls the
     * others back, which a shared transaction cannot do without failing everyone's writes).
     */
    public WorkflowEngine startsShareBatchesOf(Tx batch) {
        this.startSeats = store.vendor() == DatabaseVendor.POSTGRESQL ? batch : null;
        return this;
    }

    private static final StepLauncher.Launch PAUSED = new StepLauncher.Launch(StepLauncher.Kind.UNAVAILABLE, null,
            "the workflow is paused");

    /**
     * A read of this engine's transaction, after the writes its store keeps for one combined
     * statement ({@link WorkflowStore#combineWrites}) have been sent: a read never misses what this
     * engine wrote.
     */
    private <T> T read(Function<EntityManager, T> query) {
        return tx.inNewTransaction(em -> {
            store.flush(em);
            return query.apply(em);
        });
    }

    private LocalDateTime now() {
        return LocalDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
    }

    // ---- start -------------------------------------------------------------------------------

    /**
     * Creates an instance (the whole DAG, or an outcome: its target step and exactly that step's
     * transitive dependencies) and queues its first steps, with their episodes, in one transaction:
     * the instance is never stored without its first steps (the same statements as
     * {@link #advance}, on the rows this transaction inserted, which no other transaction sees
     * before it commits). Refused with 409 when the workflow already has an instance in flight for
     * the subject, on any node.
     */
    public String start(WorkflowDefinition def, Start start) {
        return startAll(def, List.of(start)).get(0);
    }

    /** The most instances one {@link #startAll} stores (one transaction holds them all, and their first steps' episodes). */
    public static final int MAX_STARTS_AT_ONCE = 1_000;

    /**
     * {@link #start} for a list: every instance, with its first steps and their episodes, in one
     * transaction — all of them or none. One refused (an instance in flight for its subject,
     * elsewhere or earlier in the same list) refuses the whole list with 409 naming that subject,
     * and nothing is stored.
     */
    public List<String> startAll(WorkflowDefinition def, List<Start> starts) {
        return startAll(def, starts, false).stream().map(InstanceRow::id).toList();
    }

    /**
     * {@link #startAll}, answering the instances as its transaction stored them (read in that
     * transaction, after its writes: one transaction per request, not a second one to read them).
     */
    public List<InstanceRow> startAllAndRead(WorkflowDefinition def, List<Start> starts) {
        return startAll(def, starts, true);
    }

    private List<InstanceRow> startAll(WorkflowDefinition def, List<Start> starts, boolean readBack) {
        if (starts.isEmpty() || starts.size() > MAX_STARTS_AT_ONCE) {
            throw Problem.invalid(null, starts.size() + " instances to start: 1 to " + MAX_STARTS_AT_ONCE + " in one request");
        }
        List<Prepared> prepared = starts.stream().map(s -> prepare(def, s)).toList();
        Map<String, Integer> firstWith = new HashMap<>();
        for (int i = 0; i < prepared.size(); i++) {
            Integer earlier = firstWith.putIfAbsent(prepared.get(i).row().subject(), i);
            if (earlier != null) {
                throw Problem.conflict("instances " + earlier + " and " + i + " of the list are both for subject \""
                        + prepared.get(i).row().subject() + "\": workflow " + def.id() + " runs one instance per subject at a time");
            }
        }
        Tx seats = startSeats;
        boolean seated = seats != null && prepared.size() == 1;
        // taken here: a seated start's transaction runs on the group commit's writer thread, to which
        // nothing of this thread's audited action is bound
        PendingAudit.detail(prepared.size() == 1 ? "instance " + prepared.get(0).row().id()
                : prepared.size() + " instances, " + prepared.get(0).row().id() + " … " + prepared.get(prepared.size() - 1).row().id());
        PendingAudit audit = PendingAudit.bound();
        String[] refused = new String[1];
        List<InstanceRow> stored = new ArrayList<>();
        Function<EntityManager, Optional<Runnable>> work = em -> {
            GroupCommit.runsForReal(em, "a start's refusal is a real count, and its launch reads");
            refused[0] = null; // a work may run more than once (a shared batch that failed runs it again alone)
            stored.clear();
            InCommit joined = new InCommit(em);
            WorkflowEngine here = joinedTo(joined);
            for (Prepared p : prepared) {
                here.store.continueJournal(p.row().id(), 0); // its first transition is written in this transaction
                if (!here.store.insertInstance(em, p.row(), p.steps())) {
                    refused[0] = p.row().subject();
                    if (seated) {
                        // its first write changed nothing: the shared transaction goes on without it
                        return Optional.empty();
                    }
                    // nothing of the list may stand: the exception rolls the transaction back
                    throw new RefusedStart();
                }
            }
            if (audit != null) {
                audit.writeIn(em);
            }
            here.instanceHeld = true; // inserted here: no other transaction sees the rows before the commit
            here.store.combineWrites(em);
            for (Prepared p : prepared) {
                // advanced from what was just inserted, not from a read of it
                here.advance(p.row().id(), new InstanceAndSteps(p.row(), p.steps().stream().map(s -> new StepRow(p.row().id(),
                        s.id(), StepState.PENDING, 0, s.retry().maxAttempts(), s.critical(), null, null, null, null, null, null, 0,
                        null, null, 0)).toList(), Map.of()));
            }
            here.store.writeJournal(em);
            if (readBack) {
                stored.addAll(queries.instances(em, prepared.stream().map(p -> p.row().id()).toList()));
            }
            return Optional.<Runnable>of(joined::committed);
        };
        Optional<Runnable> created;
        try {
            created = seated ? seats.inGroupTransaction(work) : tx.inNewTransaction(work);
        } catch (RuntimeException e) {
            if (!RefusedStart.in(e)) {
                throw e;
            }
            created = Optional.empty(); // rolled back: nothing of the list was stored
        }
        if (created.isEmpty()) {
            Optional<InstanceRow> own = seated ? landedEarlier(prepared.get(0).row().id()) : Optional.empty();
            if (own.isEmpty()) {
                PendingAudit.detail(null); // the refused action's row names no instance
                throw inFlight(def, refused[0]);
            }
            // its shared batch failed at the COMMIT, whose answer never came, and it had landed: the
            // run alone met its own row. Its first steps' episodes are stored with this node's leases;
            // the launch that followed that commit is lost, and recovery starts them as after a crash.
            LOG.info(() -> "Workflow " + def.id() + ": instance " + own.get().id() + " was stored by a commit whose answer was lost");
            return List.of(own.get());
        }
        prepared.forEach(p -> telemetry.count("workflow_instance_started", "workflow", def.id()));
        created.get().run();
        return readBack ? stored : prepared.stream().map(p -> p.row()).toList();
    }

    /** The instance {@code id}, when a run of its start that was not answered stored it. */
    private Optional<InstanceRow> landedEarlier(String id) {
        return read(em -> queries.instance(em, id));
    }

    /** Thrown inside {@link #startAll}'s transaction to roll it back: one of its instances was refused. */
    private static final class RefusedStart extends RuntimeException {
        RefusedStart() {
            super("an instance of the list was refused", null, false, false);
        }

        /** Whether {@code e} is this, as thrown or as the cause of what the container wrapped it in. */
        static boolean in(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof RefusedStart) {
                    return true;
                }
            }
            return false;
        }
    }

    /** This engine working inside the transaction of {@code joined} (see {@link InCommit}). */
    private WorkflowEngine joinedTo(InCommit joined) {
        // its transitions written in one INSERT at the end of the transaction (writeJournal)
        WorkflowEngine here = new WorkflowEngine(joined, store.buffered(), queries, definitions, joined.launcher(launcher), clock,
                joined.telemetry(telemetry), random).tracedBy(tracing).runsVersionsFrom(versions);
        here.paused = paused;
        Consumer<Duration> wake = retryStored;
        here.retryStored = due -> joined.after(() -> wake.accept(due));
        return here;
    }

    /**
     * {@link #start} for an event: the instance and its step rows are written in the caller's
     * transaction (the publisher's JTA transaction when it has one), so they commit with the
     * publisher's own writes or not at all — "accepted means stored", as for the episodes an event
     * starts. Nothing is launched before that commit: {@code committed} gets the instance id once
     * the transaction has committed, and is where the caller advances it (an advance lost there, to
     * a crash, is done by the next reconcile, which takes pending instances too).
     */
    public String startInCallerTransaction(WorkflowDefinition def, Start start, Consumer<String> committed) {
        Prepared p = prepare(def, start);
        AtomicBoolean created = new AtomicBoolean();
        tx.inCallerTransaction(em -> {
            created.set(store.insertInstance(em, p.row(), p.steps()));
            return null;
        }, ok -> {
            if (ok && created.get()) {
                telemetry.count("workflow_instance_started", "workflow", def.id());
                committed.accept(p.row().id());
            }
        });
        if (!created.get()) {
            throw inFlight(def, p.row().subject());
        }
        return p.row().id();
    }

    private record Prepared(InstanceRow row, List<StepDefinition> steps) {
    }

    private Prepared prepare(WorkflowDefinition def, Start start) {
        if (start.outcome() != null && def.step(start.outcome()).isEmpty()) {
            throw Problem.invalid("outcome", "workflow " + def.id() + " has no step \"" + start.outcome() + "\"");
        }
        JsonObject payload = start.payload() == null ? JsonValue.EMPTY_JSON_OBJECT : start.payload();
        String subject = start.subject() != null && !start.subject().isBlank() ? start.subject() : subjectOf(def, payload);
        List<StepDefinition> steps = def.scheduledFor(start.outcome());
        String id = UUID.randomUUID().toString();
        return new Prepared(new InstanceRow(id, def.id(), InstanceStatus.PENDING, subject, payload, start.outcome(),
                start.stack(), start.env(), 0, null, null, null, null, null, null, null, null, null, null,
                instanceSpan(def, id), def.version()), steps);
    }

    /**
     * The instance's span, under the one current here (an event's intake) or a new trace: the
     * parent of every step episode of the instance, on whichever node launches or runs it. It is
     * ended at once, marking the start: an instance outlives any one node's memory, and a span
     * can only be ended by the node that started it (the instance's duration is a metric).
     * Null when tracing is off.
     */
    private String instanceSpan(WorkflowDefinition def, String instanceId) {
        if (!tracing.on()) {
            return null;
        }
        try (TraceSpan span = tracing.start("cyclium workflow " + def.id(), tracing.current(),
                SpanAttributes.WORKFLOW, def.id(), SpanAttributes.WORKFLOW_INSTANCE_ID, instanceId)) {
            return span.traceParent();
        }
    }

    /** Spans of instances (from the container; {@link Tracing#OFF} until set). */
    public WorkflowEngine tracedBy(Tracing spans) {
        this.tracing = spans;
        return this;
    }

    /**
     * Where this engine reads a stored version of a definition (workflow id, version): every
     * instance runs the version it started with ({@link InstanceRow#definitionVersion}) to its end,
     * whatever was PUT or deployed since. Without it (or for version 0), the current definition.
     */
    public WorkflowEngine runsVersionsFrom(BiFunction<String, Long, Optional<WorkflowDefinition>> lookup) {
        this.versions = lookup;
        return this;
    }

    /** The definition {@code instance} runs: the version it started with. */
    private Optional<WorkflowDefinition> definitionOf(InstanceRow instance) {
        BiFunction<String, Long, Optional<WorkflowDefinition>> v = versions;
        return v != null && instance.definitionVersion() > 0 ? v.apply(instance.workflowId(), instance.definitionVersion())
                : definitions.apply(instance.workflowId());
    }

    private Problem inFlight(WorkflowDefinition def, String subject) {
        String other = read(em -> queries.inFlightFor(em, def.id(), subject)).orElse("(just finished)");
        return Problem.conflict("workflow " + def.id() + " already has an instance in flight for subject \"" + subject
                + "\": " + other);
    }

    /**
     * Starts the instance of one schedule bucket (its subject is {@code schedule:<bucket>}), unless
     * the bucket already has one, in flight or finished: every node's timer asks each tick and one
     * instance per bucket results. Two nodes asking at once both pass the check; the in-flight
     * index then lets one insert through (the other's 409 is swallowed here). The check cannot see
     * a winner that already finished between the loser's check and its insert, which would take a
     * whole DAG run inside that gap of a few milliseconds.
     */
    public Optional<String> startForBucket(WorkflowDefinition def, String bucket, Start start) {
        String subject = "schedule:" + bucket;
        if (read(em -> queries.anyFor(em, def.id(), subject))) {
            return Optional.empty();
        }
        try {
            return Optional.of(start(def, new Start(start.payload(), subject, null, start.stack(), start.env(), start.cause())));
        } catch (Problem p) {
            if (p.status() == 409) {
                return Optional.empty();
            }
            throw p;
        }
    }

    static String subjectOf(WorkflowDefinition def, JsonObject payload) {
        if (def.subjectKey() == null || def.subjectKey().isBlank()) {
            return "_";
        }
        JsonValue at = payload;
        for (String part : def.subjectKey().split("\\.")) {
            if (!(at instanceof JsonObject o) || !o.containsKey(part)) {
                throw Problem.invalid("payload." + def.subjectKey(), "workflow " + def.id() + " takes its subject from payload field \""
                        + def.subjectKey() + "\", which is missing");
            }
            at = o.get(part);
        }
        return at instanceof jakarta.json.JsonString s ? s.getString() : at.toString();
    }

    // ---- advance -----------------------------------------------------------------------------

    /**
     * Moves an instance forward from what is stored: pending → running, queues every step whose
     * dependencies are done, completes or fails the instance when nothing is left, and blocks it
     * when only approval-gated steps could run. Safe to call any number of times from any node.
     */
    public void advance(String instanceId) {
        advance(instanceId, null);
    }

    /**
     * {@link #advance(String)} from {@code known}, the instance and its steps as this engine's
     * transaction left them (only while it holds the instance's row: {@link #instanceHeld}), or
     * from what it reads when null.
     */
    private void advance(String instanceId, InstanceAndSteps known) {
        // the instance and its steps in one transaction (two reads, one round of BEGIN/COMMIT)
        InstanceAndSteps read = known != null ? known : read(em -> queries.instance(em, instanceId)
                .map(i -> new InstanceAndSteps(i, queries.steps(em, instanceId), null)).orElse(null));
        if (read == null) {
            return;
        }
        InstanceRow instance = read.instance();
        Optional<WorkflowDefinition> def = definitionOf(instance);
        if (def.isEmpty()) {
            LOG.warning(() -> "Workflow instance " + instanceId + " names workflow " + instance.workflowId()
                    + ", which is not defined here; it waits until a node that knows it reconciles it");
            return;
        }
        if (InstanceStatus.PENDING.equals(instance.status())) {
            int won = tx.inNewTransaction(em -> store.moveInstance(em, instanceId, InstanceStatus.PENDING, instance.version(),
                    InstanceStatus.RUNNING, null, "started"));
            // holding the row, this engine knows what its move left; otherwise another may have moved it since
            advance(instanceId, won == 1 && known != null ? new InstanceAndSteps(instance.movedTo(InstanceStatus.RUNNING),
                    read.steps(), read.summaries()) : null);
            return;
        }
        if (!InstanceStatus.RUNNING.equals(instance.status())) {
            return;
        }
        List<StepRow> steps = read.steps();
        Map<String, StepRow> byId = new HashMap<>();
        steps.forEach(s -> byId.put(s.stepId(), s));
        boolean queuedAny = false;
        List<String> awaitingApproval = new ArrayList<>();
        for (StepRow s : steps) {
            if (!StepState.PENDING.equals(s.state())) {
                continue;
            }
            StepDefinition sd = def.get().step(s.stepId()).orElseThrow();
            if (!ready(sd, byId)) {
                continue;
            }
            if (sd.gated() && s.approvedAt() == null) {
                awaitingApproval.add(s.stepId() + (sd.signal() != null ? " (signal " + sd.signal() + ")" : ""));
                continue;
            }
            if (instanceHeld) {
                launchHeld(instance, sd, byId, read.summaries());
                queuedAny = true;
                continue;
            }
            int won = tx.inNewTransaction(em -> store.queue(em, instanceId, s.stepId(), StepState.PENDING, 0, false,
                    "dependencies done"));
            if (won == 1) {
                queuedAny = true;
                launch(instance, sd, 1, byId, read.summaries());
            }
        }
        if (queuedAny) {
            return;
        }
        boolean active = steps.stream().anyMatch(s -> s.active() || (StepState.FAILED.equals(s.state()) && s.nextAttemptAt() != null));
        if (active) {
            return;
        }
        if (!awaitingApproval.isEmpty()) {
            String reason = "step(s) " + awaitingApproval + " await approval or their signal";
            tx.inNewTransaction(em -> store.moveInstance(em, instanceId, InstanceStatus.RUNNING, instance.version(),
                    InstanceStatus.BLOCKED, reason, reason));
            return;
        }
        if (steps.stream().allMatch(StepRow::finishedForGood)) {
            // steps known in memory (held since read) are as stored, but for the one that ended in
            // this transaction, whose run time the statistics take up to the database's now (complete)
            complete(instance, def.get(), steps);
        }
    }

    /**
     * An instance and its steps as one engine read (or wrote) them; {@code summaries}: each step's
     * current episode's summary by step id, when read with them (null: not read, ask per step).
     */
    private record InstanceAndSteps(InstanceRow instance, List<StepRow> steps, Map<String, String> summaries) {
    }

    /** Every dependency completed, or failed for good without being critical. */
    private static boolean ready(StepDefinition sd, Map<String, StepRow> byId) {
        for (String dep : sd.dependsOn()) {
            StepRow d = byId.get(dep);
            if (d == null) {
                continue; // not scheduled (outside an outcome's closure): cannot happen, closure includes deps
            }
            boolean done = StepState.COMPLETED.equals(d.state()) || (d.failedForGood() && !d.critical());
            if (!done) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code steps} with the run time of each that ended but has no finish time — it ended in this
     * transaction and is known from memory ({@link #afterEnding}) — taken up to {@code now}, as its
     * finish wrote it ({@link WorkflowStore#finishStep}: the time since it was queued, on the
     * database's clock). A step read from the database after it ended has its finish time.
     */
    private static List<StepRow> endedBy(List<StepRow> steps, LocalDateTime now) {
        List<StepRow> out = new ArrayList<>(steps.size());
        for (StepRow s : steps) {
            boolean endedHere = s.finishedForGood() && s.finishedAt() == null && s.queuedAt() != null;
            out.add(!endedHere ? s : new StepRow(s.instanceId(), s.stepId(), s.state(), s.attempt(), s.maxAttempts(),
                    s.critical(), s.nextAttemptAt(), s.approvedAt(), s.episodeId(), s.queuedAt(), s.startedAt(), now,
                    s.runMs() + WorkflowStore.runMillis(s.queuedAt(), now), s.errorClass(), s.errorDetail(),
                    s.version()));
        }
        return out;
    }

    private void complete(InstanceRow instance, WorkflowDefinition def, List<StepRow> steps) {
        List<String> failedCritical = steps.stream().filter(s -> s.failedForGood() && s.critical()).map(StepRow::stepId).toList();
        String to = failedCritical.isEmpty() ? InstanceStatus.COMPLETED : InstanceStatus.FAILED;
        InstanceStats[] measured = new InstanceStats[1];
        // an instance this engine inserted has no start time in memory (the database's clock wrote it)
        LocalDateTime startedAt = instance.startedAt() != null ? instance.startedAt()
                : read(em -> queries.instance(em, instance.id())).map(InstanceRow::startedAt).orElse(null);
        int won = tx.inNewTransaction(em -> {
            LocalDateTime now = store.time().read(em);
            InstanceStats stats = InstanceStats.of(def, startedAt, now, endedBy(steps, now));
            measured[0] = stats;
            return store.finishInstance(em, instance.id(), InstanceStatus.RUNNING, instance.version(),
                    to, failedCritical.isEmpty() ? null : "critical step(s) failed: " + failedCritical, stats,
                    "every scheduled step finished", now);
        });
        InstanceStats stats = measured[0];
        if (won == 1) {
            telemetry.count(to.equals(InstanceStatus.COMPLETED) ? "workflow_instance_completed" : "workflow_instance_failed",
                    "workflow", def.id());
            telemetry.time("workflow_instance_duration", Duration.ofMillis(stats.durationMs()), "workflow", def.id());
        }
    }

    /**
     * Creates the episode of a queued attempt, in one transaction with holding the instance's row
     * while it is running ({@link WorkflowStore#holdRunning}). That orders every launch against a
     * cancel or abort, whose {@link WorkflowStore#finishInstance} updates the same row: a launch
     * after it matches nothing and creates no episode; a launch before it commits its episode
     * first (the cancel's UPDATE waits for the hold), and {@link #end} then finds that episode by
     * its instance and asks it to stop. So once a cancel has returned, no step of the instance
     * starts, and every step episode it has is asked to stop. (A step may still be queued after
     * the cancel; it is never launched. Queuing a pending step does not hold the instance: engines
     * racing to queue and attach one step lock the step row and then, through the journal's
     * foreign key, the instance row; one holding the instance first deadlocked with that on
     * MariaDB. Retries do hold it first, both the timer's and the operator's: see
     * {@link WorkflowStore#holdInFlight}.)
     */
    private void launch(InstanceRow instance, StepDefinition sd, int attempt, Map<String, StepRow> byId) {
        launch(instance, sd, attempt, byId, null);
    }

    /** {@link #launch}; {@code summaries}: the steps' episodes' summaries when read with them (null: read here). */
    private void launch(InstanceRow instance, StepDefinition sd, int attempt, Map<String, StepRow> byId,
            Map<String, String> summaries) {
        String key = StepLauncher.dedupeKey(instance.id(), sd.id(), attempt);
        // the dependencies' summaries are read in the launch's own transaction, after the hold
        // held already (and read running under the hold) when this engine works in a terminal write
        boolean held = instanceHeld && InstanceStatus.RUNNING.equals(instance.status());
        // paused: the step stays queued without its episode (checked after the hold, like a cancel)
        StepLauncher.Launch launch = tx.inNewTransaction(em -> !held && store.holdRunning(em, instance.id()) == 0
                ? new StepLauncher.Launch(StepLauncher.Kind.UNAVAILABLE, null, "the instance is no longer running")
                : paused.test(instance.workflowId()) ? PAUSED
                : launcher.launch(em, instance.workflowId(), sd, instance.id(), attempt, key,
                        input(em, instance, sd, attempt, byId, summaries),
                        instance.sourceStack(), instance.sourceEnv(), instance.traceParent()));
        String episodeId = launch.episodeId();
        if (launch.kind() == StepLauncher.Kind.DUPLICATE && episodeId == null) {
            episodeId = read(em -> queries.episodeByKey(em, key)).map(WorkflowQueries.EpisodeOutcome::episodeId)
                    .orElse(null);
        }
        if (episodeId == null) {
            LOG.fine(() -> "Step " + sd.id() + " of " + instance.id() + " stays queued here: " + launch.why());
            return;
        }
        String id = episodeId;
        boolean running = launch.kind() == StepLauncher.Kind.STARTED;
        tx.inNewTransaction(em -> store.attachEpisode(em, instance.id(), sd.id(), attempt, id, running));
    }

    /**
     * {@link #launch} of a pending step's first attempt by an engine inside one transaction that
     * holds the instance's row ({@link #instanceHeld}: a step's terminal write, or a start): the
     * episode first, then the step queued with it attached (and running, when it started) in one
     * guarded UPDATE. Engines that do not hold the instance (a reconcile on another node) may
     * queue the same step meanwhile; then either the launch finds that attempt's episode already
     * stored (its dedupe key) or the UPDATE matches nothing, and the whole transaction runs again
     * ({@link RunAgain}) — its episode must not stand beside the other engine's, and the next run
     * reads the step queued and leaves it.
     */
    private void launchHeld(InstanceRow instance, StepDefinition sd, Map<String, StepRow> byId, Map<String, String> summaries) {
        String key = StepLauncher.dedupeKey(instance.id(), sd.id(), 1);
        // paused: queued below without an episode, launched by a reconcile after the resume
        StepLauncher.Launch launch = paused.test(instance.workflowId()) ? PAUSED
                : tx.inNewTransaction(em -> launcher.launch(em, instance.workflowId(), sd, instance.id(), 1, key,
                        input(em, instance, sd, 1, byId, summaries), instance.sourceStack(), instance.sourceEnv(),
                        instance.traceParent()));
        if (launch.kind() == StepLauncher.Kind.DUPLICATE) {
            throw new RunAgain("step " + sd.id() + " of " + instance.id() + " was launched by another engine meanwhile");
        }
        boolean running = launch.kind() == StepLauncher.Kind.STARTED;
        if (launch.episodeId() == null) {
            LOG.fine(() -> "Step " + sd.id() + " of " + instance.id() + " stays queued here: " + launch.why());
        }
        int won = tx.inNewTransaction(em -> store.queueAndAttach(em, instance.id(), sd.id(), launch.episodeId(), running,
                "dependencies done"));
        if (won == 0) {
            throw new RunAgain("step " + sd.id() + " of " + instance.id() + " was queued by another engine meanwhile");
        }
    }

    /** The queries, once what the store keeps for a combined statement was sent (see {@link #read}). */
    private WorkflowQueries flushedFirst(EntityManager em) {
        store.flush(em);
        return queries;
    }

    /** The step episode's payload: the instance payload, who it runs for, and its dependencies' summaries. */
    private JsonObject input(EntityManager em, InstanceRow instance, StepDefinition sd, int attempt, Map<String, StepRow> byId,
            Map<String, String> summaries) {
        JsonObjectBuilder upstream = Jsons.object();
        for (String dep : sd.dependsOn()) {
            StepRow d = byId.get(dep);
            if (d != null && d.episodeId() != null) {
                String summary = summaries != null ? summaries.get(dep)
                        : flushedFirst(em).episode(em, d.episodeId()).map(WorkflowQueries.EpisodeOutcome::summary).orElse(null);
                upstream.add(dep, summary == null ? Jsons.object().add("state", d.state()).build()
                        : Jsons.object().add("state", d.state()).add("summary", summary).build());
            }
        }
        return Jsons.object(instance.payload())
                .add("workflow", Jsons.object().add("workflowId", instance.workflowId())
                        .add("instanceId", instance.id()).add("stepId", sd.id()).add("attempt", attempt))
                .add("upstream", upstream).build();
    }

    // ---- terminal events ---------------------------------------------------------------------

    /**
     * A step episode is ending: inside its terminal write's transaction {@code em} (after the
     * episode row, its journal row and its lease), records the step's outcome, advances the
     * instance and stores the next steps' episodes with their leases — what {@link #onFinished}
     * does after the commit, here as part of it, with the same guarded statements. So the step is
     * never done without its successors stored: a node that dies before the commit leaves the step
     * running (recovery runs the episode again), after it leaves both.
     *
     * <p>The instance row is held first ({@link WorkflowStore#holdInFlight}): two steps of one
     * instance ending at once on two nodes (or in two transactions of one) would otherwise each read
     * the other still running, and neither would queue the step that waits for both. Holding it,
     * the second waits for the first to commit and then reads its outcome.
     *
     * <p>Returns what to run once the transaction committed (metrics, cancels of other steps'
     * episodes after an abort, the retry timer's wake-up). May run more than once for one episode
     * (the caller's transaction failed and runs again): each run starts from what is stored.
     */
    public Optional<Runnable> finishInCommit(EntityManager em, EpisodeFinished event) {
        if (event.workflowInstanceId() == null || event.workflowStepId() == null) {
            return Optional.empty();
        }
        InCommit joined = new InCommit(em);
        WorkflowEngine here = joinedTo(joined);
        String instanceId = event.workflowInstanceId();
        // read and held in one statement (what holdInFlight and a read did in two), then the steps
        // with their episodes' summaries (what the launches pass on) in one more; on PostgreSQL all
        // in one, read again only when the instance's holder before this one changed them meanwhile
        InstanceAndSteps read = (queries.readsHeldWithSteps() ? queries.heldInstanceWithSteps(em, instanceId).map(h -> {
            WorkflowQueries.StepsAndSummaries s = h.current() ? h.steps() : queries.stepsWithSummaries(em, instanceId);
            return held(here, h.instance(), s);
        }) : queries.heldInstance(em, instanceId).map(i -> held(here, i, queries.stepsWithSummaries(em, instanceId))))
                .orElse(null);
        here.instanceHeld = read != null && (InstanceStatus.RUNNING.equals(read.instance().status())
                || InstanceStatus.BLOCKED.equals(read.instance().status()));
        if (read != null) {
            // while in flight: the step finished and its successors queued in one statement with their journal (PostgreSQL)
            here.store.holding(em, instanceId, here.instanceHeld);
        }
        here.onFinished(event, read);
        here.store.writeJournal(em);
        return Optional.of(joined::committed);
    }

    private static InstanceAndSteps held(WorkflowEngine here, InstanceRow instance, WorkflowQueries.StepsAndSummaries s) {
        here.store.continueJournal(instance.id(), s.lastTransition());
        here.store.at(s.readAt());
        return new InstanceAndSteps(instance, s.steps(), s.summaries());
    }

    /** A step episode ended (the CDI event after its terminal commit, or a replay by reconcile). */
    public void onFinished(EpisodeFinished event) {
        onFinished(event, null);
    }

    /** {@link #onFinished(EpisodeFinished)} from {@code held}, the instance and steps read under its hold (null: read them). */
    private void onFinished(EpisodeFinished event, InstanceAndSteps held) {
        if (event.workflowInstanceId() == null || event.workflowStepId() == null || event.advancedInCommit()) {
            return;
        }
        String instanceId = event.workflowInstanceId();
        // the instance and its steps in one transaction: the finish below needs both
        InstanceAndSteps read = held != null ? held : read(em -> queries.instance(em, instanceId)
                .map(i -> new InstanceAndSteps(i, queries.steps(em, instanceId), null)).orElse(null));
        Optional<StepRow> found = read == null ? Optional.empty() : read.steps().stream()
                .filter(s -> s.stepId().equals(event.workflowStepId())).findFirst();
        if (found.isEmpty() || !found.get().active()) {
            return; // another engine handled it already
        }
        StepRow step = found.get();
        if (step.episodeId() == null) {
            StepRow unattached = step;
            // The episode may end before the engine that launched it has recorded it: it is the
            // attempt's episode when it holds the attempt's dedupe key, so record it here first.
            String key = StepLauncher.dedupeKey(instanceId, unattached.stepId(), unattached.attempt());
            boolean ours = read(em -> queries.episodeByKey(em, key)).map(e -> e.episodeId().equals(event.episodeId()))
                    .orElse(false);
            if (!ours) {
                return;
            }
            tx.inNewTransaction(em -> store.attachEpisode(em, instanceId, unattached.stepId(), unattached.attempt(),
                    event.episodeId(), false));
            List<StepRow> again = read(em -> queries.steps(em, instanceId));
            read = new InstanceAndSteps(read.instance(), again, null); // the summaries read before the attach miss this one
            step = again.stream().filter(s -> s.stepId().equals(event.workflowStepId())).findFirst().orElseThrow();
        }
        if (!event.episodeId().equals(step.episodeId()) || !step.active()) {
            return; // an older attempt's episode, or another engine handled it already
        }
        finished(read, step, event);
    }

    /**
     * What advancing may start from after {@code step} ended as {@code state}: the instance and
     * steps as read, with that step as written — when this engine holds the instance's row since
     * it read them; null (read them again) otherwise.
     */
    private InstanceAndSteps afterEnding(InstanceAndSteps read, StepRow step, String state, boolean retryDue) {
        if (!instanceHeld) {
            return null;
        }
        List<StepRow> steps = new ArrayList<>(read.steps().size());
        for (StepRow s : read.steps()) {
            // only the fields advancing decides on: the state, and whether a retry is due (its time is the database's)
            steps.add(!s.stepId().equals(step.stepId()) ? s : new StepRow(s.instanceId(), s.stepId(), state, s.attempt(),
                    s.maxAttempts(), s.critical(), retryDue ? LocalDateTime.MAX : null, s.approvedAt(), s.episodeId(),
                    s.queuedAt(), s.startedAt(), s.finishedAt(), s.runMs(), s.errorClass(), s.errorDetail(), s.version() + 1));
        }
        return new InstanceAndSteps(read.instance(), steps, read.summaries());
    }

    private void finished(InstanceAndSteps read, StepRow step, EpisodeFinished event) {
        InstanceRow instance = read.instance();
        String instanceId = step.instanceId();
        Optional<WorkflowDefinition> def = definitionOf(instance);
        if (def.isEmpty()) {
            return;
        }
        StepDefinition sd = def.get().step(step.stepId()).orElseThrow();
        // for the metric only: the stored run time is measured by the database's clock (finishStep)
        long ms = step.queuedAt() == null ? 0 : Math.max(0, Duration.between(step.queuedAt(), now()).toMillis());
        boolean success = "done".equals(event.status()) || "partially_failed".equals(event.status());
        if (success) {
            int won = tx.inNewTransaction(em -> store.finishStep(em, step, StepState.COMPLETED, null, null, null,
                    "episode " + event.episodeId() + " " + event.status()));
            if (won == 1) {
                telemetry.time("workflow_step_duration", Duration.ofMillis(ms), "workflow", instance.workflowId(), "step", sd.id());
            }
            advance(instanceId, won == 1 ? afterEnding(read, step, StepState.COMPLETED, false) : null);
            return;
        }
        boolean abandoned = !instance.inFlight();
        // the backoff only: the due time is the database's clock plus it (finishStep)
        Instant from = clock.instant();
        Duration retryIn = abandoned ? null : sd.retry().nextAttempt(step.attempt(), event.errorClass(), from, random)
                .map(t -> Duration.between(from, t)).orElse(null);
        String cause = "episode " + event.episodeId() + " " + event.status()
                + (event.errorClass() == null ? "" : " (" + event.errorClass() + ")")
                + (retryIn != null ? "; attempt " + (step.attempt() + 1) + " of " + sd.retry().maxAttempts() + " due in "
                        + retryIn.toMillis() + " ms" : "; no attempt left");
        Duration due = retryIn;
        int won = tx.inNewTransaction(em -> store.finishStep(em, step, StepState.FAILED, retryIn, event.errorClass(),
                event.status(), cause));
        if (won == 0) {
            return;
        }
        telemetry.time("workflow_step_duration", Duration.ofMillis(ms), "workflow", instance.workflowId(), "step", sd.id());
        if (due != null) {
            retryStored.accept(due);
        }
        if (due == null && sd.critical() && !abandoned) {
            onCriticalFailure(instance.id(), sd, cause);
            advance(instanceId); // the instance may have moved: read it again
            return;
        }
        advance(instanceId, afterEnding(read, step, StepState.FAILED, due != null));
    }

    private void onCriticalFailure(String instanceId, StepDefinition sd, String cause) {
        InstanceRow instance = read(em -> queries.instance(em, instanceId)).orElseThrow();
        if (!InstanceStatus.RUNNING.equals(instance.status())) {
            return;
        }
        if (sd.onFailure() == FailurePolicy.PAUSE) {
            String reason = "step " + sd.id() + " failed: resume or retry it";
            tx.inNewTransaction(em -> store.moveInstance(em, instanceId, InstanceStatus.RUNNING, instance.version(),
                    InstanceStatus.BLOCKED, reason, "paused: " + cause));
            return;
        }
        end(instance, InstanceStatus.FAILED, "critical step " + sd.id() + " failed (abort): " + cause);
    }

    /** Ends an in-flight instance as failed or canceled and asks its active steps' episodes to stop. */
    private boolean end(InstanceRow instance, String to, String cause) {
        WorkflowDefinition def = definitionOf(instance).orElse(null);
        List<StepRow> steps = read(em -> queries.steps(em, instance.id()));
        int won = tx.inNewTransaction(em -> {
            LocalDateTime now = store.time().read(em);
            InstanceStats stats = def == null ? new InstanceStats(0, 0, 0, 0, Map.of(), List.of(), 0)
                    : InstanceStats.of(def, instance.startedAt(), now, steps);
            return recorded(em, store.finishInstance(em, instance.id(), instance.status(), instance.version(), to, cause, stats,
                    cause, now));
        });
        if (won == 0) {
            return false;
        }
        telemetry.count(InstanceStatus.CANCELED.equals(to) ? "workflow_instance_canceled" : "workflow_instance_failed",
                "workflow", instance.workflowId());
        // read after the instance ended, by instance and not by step: a launch that won the row
        // before finishInstance has committed its episode, attached to its step or not yet (see
        // launch); any launch after it created nothing
        read(em -> queries.liveEpisodes(em, instance.id())).forEach(launcher::cancel);
        return true;
    }

    // ---- retries -----------------------------------------------------------------------------

    /** Starts every retry due by now: each claimed by a conditional UPDATE, so one node runs it. Returns how many it started. */
    public int runDueRetries(int limit) {
        List<StepRow> due = read(em -> queries.dueRetries(em, store.time(), limit));
        int started = 0;
        for (StepRow s : due) {
            // claimed only while the instance runs, in one transaction with holding its row: a
            // cancel between the read above and this claim leaves the retry unstarted
            // A deadlock victim (MariaDB, racing an operator's retry of the same step) runs again:
            // the work re-reads the instance and the step's state, so a second run decides anew.
            int won = DeadlockRetry.inNewTransaction(tx, em -> store.holdRunning(em, s.instanceId()) == 0 ? 0
                    : store.queue(em, s.instanceId(), s.stepId(), StepState.FAILED, s.attempt(), true,
                            "retry due " + s.nextAttemptAt()), attempt -> LOG.fine(() -> "Deadlock victim (attempt " + attempt + "), running again"));
            if (won == 1) {
                started++;
                telemetry.count("workflow_step_retried", "step", s.stepId());
                relaunch(s.instanceId(), s.stepId(), s.attempt() + 1);
            }
        }
        return started;
    }

    private void relaunch(String instanceId, String stepId, int attempt) {
        InstanceRow instance = read(em -> queries.instance(em, instanceId)).orElseThrow();
        definitionOf(instance).flatMap(d -> d.step(stepId)).ifPresent(sd -> {
            Map<String, StepRow> byId = new HashMap<>();
            read(em -> queries.steps(em, instanceId)).forEach(r -> byId.put(r.stepId(), r));
            launch(instance, sd, attempt, byId);
        });
    }

    // ---- reconcile ---------------------------------------------------------------------------

    /**
     * Repairs in-flight instances of one stack/env from what is stored, whatever events were
     * missed: a queued step without its episode gets it (found by its dedupe key, or launched);
     * an active step whose episode is terminal has that outcome replayed through
     * {@link #onFinished}; a queued step whose episode runs is marked running; then the instance is
     * advanced (ready steps queued, completion). Due retries run too. Returns instances looked at.
     */
    public int reconcile(String stack, boolean anyStack, String env, int limit) {
        List<String> ids = nextPage(stack, anyStack, env, limit);
        for (String id : ids) {
            reconcileInstance(id);
        }
        runDueRetries(limit);
        return ids.size();
    }

    /**
     * The next {@code limit} in-flight instances of a scope, going round in id order from where
     * the last pass of that scope stopped. Always the oldest first (as before 2026-12-02) meant
     * that more than {@code limit} instances waiting for an operator (blocked) or for a node that
     * knows their workflow were all a pass ever looked at: a newer instance with a step that no
     * node launched was never repaired. Now every in-flight instance is looked at within
     * ⌈in flight / limit⌉ passes. The place is this engine's (per node): nodes may look at the
     * same instances, which is safe (every repair is a guarded UPDATE or a deduplicated launch).
     */
    private List<String> nextPage(String stack, boolean anyStack, String env, int limit) {
        String scope = (anyStack ? "*" : "stack:" + stack) + " env:" + env;
        String after = reconcileFrom.get(scope);
        List<String> page = new ArrayList<>(read(em -> queries.inFlight(em, stack, anyStack, env, after, limit)));
        if (page.size() < limit && after != null) {
            // the end of the order: go on from its start, without the ones already in this page
            Set<String> seen = new HashSet<>(page);
            for (String id : read(em -> queries.inFlight(em, stack, anyStack, env, null, limit - page.size()))) {
                if (seen.add(id)) {
                    page.add(id);
                }
            }
        }
        if (page.size() < limit) {
            reconcileFrom.remove(scope); // every in-flight instance was in this pass: the next one starts at the first
        } else {
            reconcileFrom.put(scope, page.get(page.size() - 1));
        }
        return page;
    }

    void reconcileInstance(String instanceId) {
        InstanceRow instance = read(em -> queries.instance(em, instanceId)).orElse(null);
        if (instance == null) {
            return;
        }
        for (StepRow s : read(em -> queries.steps(em, instanceId))) {
            if (!s.active()) {
                continue;
            }
            if (s.episodeId() == null) {
                attachOrLaunch(instance, s);
                continue;
            }
            read(em -> queries.episode(em, s.episodeId())).ifPresent(e -> {
                // a queued episode is stored running too: the step stays queued (with its queue reason) until it starts
                if (e.started() && StepState.QUEUED.equals(s.state())) {
                    tx.inNewTransaction(em -> store.markRunning(em, instanceId, s.stepId(), e.episodeId(),
                            "episode seen running by reconcile"));
                }
                replayIfTerminal(instance, s.stepId(), e);
            });
        }
        advance(instanceId);
    }

    /**
     * A queued step without an episode: attaches the attempt's episode if one was created (found by
     * its dedupe key; its outcome is replayed if it ended), or launches it while the instance runs.
     */
    private void attachOrLaunch(InstanceRow instance, StepRow s) {
        String key = StepLauncher.dedupeKey(instance.id(), s.stepId(), s.attempt());
        Optional<WorkflowQueries.EpisodeOutcome> existing = read(em -> queries.episodeByKey(em, key));
        if (existing.isPresent()) {
            tx.inNewTransaction(em -> store.attachEpisode(em, instance.id(), s.stepId(), s.attempt(),
                    existing.get().episodeId(), false));
            replayIfTerminal(instance, s.stepId(), existing.get());
        } else if (InstanceStatus.RUNNING.equals(instance.status())) {
            relaunch(instance.id(), s.stepId(), s.attempt());
        }
    }

    /**
     * After a blocked instance runs again (resumed, a step retried or approved): gives every queued
     * step without an episode its episode now. Such a step was queued while a critical failure of
     * another step was blocking the instance: its launch, after that block committed, found the
     * instance not running and created nothing (see {@link #launch}). Advancing never launches a
     * step that is already queued, so without this it waited for the next reconcile after a sweep.
     */
    private void launchStranded(String instanceId) {
        InstanceRow instance = mustFind(instanceId);
        for (StepRow s : read(em -> queries.steps(em, instanceId))) {
            if (StepState.QUEUED.equals(s.state()) && s.episodeId() == null) {
                attachOrLaunch(instance, s);
            }
        }
    }

    private void replayIfTerminal(InstanceRow instance, String stepId, WorkflowQueries.EpisodeOutcome e) {
        if (io.cyclium.episode.EpisodeStatus.parse(e.status()).map(io.cyclium.episode.EpisodeStatus::terminal).orElse(false)) {
            telemetry.count("workflow_event_replayed", "workflow", instance.workflowId());
            WorkflowQueries.EpisodeOutcome o = e;
            onFinished(new EpisodeFinished(o.episodeId(), null, null, o.status(), o.errorClass(), instance.id(), stepId));
        }
    }

    // ---- operators ---------------------------------------------------------------------------

    /** Cancels an in-flight instance; its running steps' episodes are asked to stop. */
    public void cancel(String instanceId, String by) {
        InstanceRow instance = mustFind(instanceId);
        if (!instance.inFlight() || !end(instance, InstanceStatus.CANCELED, "canceled by " + by)) {
            throw Problem.conflict("instance " + instanceId + " is " + instance.status() + ": only an instance in flight can be canceled");
        }
    }

    /**
     * Resumes a blocked instance: approves the gated steps that are ready and queues again every
     * critical step that failed for good (the pause policy), then advances.
     */
    public void resume(String instanceId, String by) {
        InstanceRow instance = mustFind(instanceId);
        if (!InstanceStatus.BLOCKED.equals(instance.status())) {
            throw Problem.conflict("instance " + instanceId + " is " + instance.status() + ": only a blocked instance can be resumed");
        }
        for (StepRow s : read(em -> queries.steps(em, instanceId))) {
            if (StepState.PENDING.equals(s.state()) && s.approvedAt() == null) {
                tx.inNewTransaction(em -> recorded(em, store.approve(em, instanceId, s.stepId(), by)));
            }
        }
        if (!unblock(instance, "resumed by " + by)) {
            throw Problem.conflict("instance " + instanceId + " changed while resuming it: read it again");
        }
        launchStranded(instanceId);
        for (StepRow s : read(em -> queries.steps(em, instanceId))) {
            if (s.failedForGood() && s.critical()) {
                retryStep(instanceId, s.stepId(), by);
            }
        }
        advance(instanceId);
    }

    /**
     * Queues a failed step again (an operator's retry: due now, whatever attempts are left); a
     * blocked instance runs again. Pending gated steps are approved with {@code approve}.
     */
    public void retryStep(String instanceId, String stepId, String by) {
        InstanceRow instance = mustFind(instanceId);
        if (!instance.inFlight()) {
            throw Problem.conflict("instance " + instanceId + " is " + instance.status() + ": steps of a finished instance do not run again");
        }
        StepRow step = read(em -> queries.steps(em, instanceId)).stream().filter(s -> s.stepId().equals(stepId))
                .findFirst().orElseThrow(() -> Problem.notFound("instance " + instanceId + " has no step " + stepId));
        if (!StepState.FAILED.equals(step.state())) {
            throw Problem.conflict("step " + stepId + " is " + step.state() + ": only a failed step can be retried");
        }
        // the instance row first, as the retry timer's claim takes it (see WorkflowStore#holdInFlight);
        // a cancel since the check above also makes this 0
        if (DeadlockRetry.inNewTransaction(tx, em -> store.holdInFlight(em, instanceId) == 0 ? 0
                : recorded(em, store.queue(em, instanceId, stepId, StepState.FAILED, step.attempt(), false, "retried by " + by)),
                attempt -> LOG.fine(() -> "Deadlock victim (attempt " + attempt + "), running again")) == 0) {
            throw Problem.conflict("step " + stepId + " changed while retrying it: read it again");
        }
        telemetry.count("workflow_step_retried", "step", stepId);
        // running again before the relaunch (its launch needs a running instance); stranded steps
        // launched after it: before, the retried step (queued, no episode yet) would look stranded
        boolean unblocked = InstanceStatus.BLOCKED.equals(instance.status()) && unblock(instance, "step " + stepId + " retried by " + by);
        relaunch(instanceId, stepId, step.attempt() + 1);
        if (unblocked) {
            launchStranded(instanceId);
        }
    }

    /** Approves a gated step; a blocked instance runs again. */
    public void approve(String instanceId, String stepId, String by) {
        InstanceRow instance = mustFind(instanceId);
        if (tx.inNewTransaction(em -> recorded(em, store.approve(em, instanceId, stepId, by))) == 0) {
            throw Problem.conflict("step " + stepId + " of " + instanceId + " is not a pending step awaiting approval");
        }
        if (InstanceStatus.BLOCKED.equals(instance.status()) && unblock(instance, "step " + stepId + " approved by " + by)) {
            launchStranded(instanceId);
        }
        advance(instanceId);
    }

    /**
     * A signal for an instance: opens every signal gate of that name among its steps that have not
     * started (one whose dependencies are not done yet opens in advance, so a signal sent early is
     * not lost), each with the approval's guard (a pending step not yet opened: 0 rows, another
     * signal or node opened it first). The payload is kept beside the instance (its signals,
     * target {@code workflow_instance}) in the same transaction. 409 when no step of the instance
     * waits for that name; 404 for an unknown instance. Returns the steps it opened.
     */
    public List<String> signal(String instanceId, String name, jakarta.json.JsonValue payload, String by) {
        InstanceRow instance = mustFind(instanceId);
        WorkflowDefinition def = definitionOf(instance).orElseThrow(() -> Problem.conflict("instance " + instanceId
                + " runs workflow " + instance.workflowId() + ", which is not defined on this node"));
        if (!InstanceStatus.PENDING.equals(instance.status()) && !InstanceStatus.RUNNING.equals(instance.status())
                && !InstanceStatus.BLOCKED.equals(instance.status())) {
            throw Problem.conflict("instance " + instanceId + " is " + instance.status() + ": a signal for it would never be read");
        }
        List<String> gates = def.steps().stream().filter(sd -> name.equals(sd.signal())).map(StepDefinition::id).toList();
        io.cyclium.episode.WaitStore waits = new io.cyclium.episode.WaitStore(store.time());
        List<String> opened = DeadlockRetry.inNewTransaction(tx, em -> {
            List<String> changed = new ArrayList<>();
            for (String stepId : gates) {
                if (store.approve(em, instanceId, stepId, "signal " + name + (by == null ? "" : " from " + by)) == 1) {
                    changed.add(stepId);
                }
            }
            if (!changed.isEmpty()) {
                waits.keepSignal(em, io.cyclium.episode.WaitStore.WORKFLOW_INSTANCE, instanceId, name, payload, by);
                PendingAudit.recordIn(em);
            }
            return changed;
        }, attempt -> LOG.fine(() -> "Deadlock victim (attempt " + attempt + "), running again"));
        if (opened.isEmpty()) {
            throw Problem.conflict(gates.isEmpty() ? "no step of workflow " + def.id() + " waits for signal \"" + name + "\""
                    : "every step of instance " + instanceId + " that waits for signal \"" + name + "\" has started or was opened");
        }
        telemetry.count("workflow_signal_received", "workflow", def.id());
        if (InstanceStatus.BLOCKED.equals(instance.status()) && unblock(instance, "signal " + name + " opened " + opened)) {
            launchStranded(instanceId);
        }
        advance(instanceId);
        return opened;
    }

    /** blocked → running at the version read; false when it changed since (another operator, a cancel). */
    private boolean unblock(InstanceRow blocked, String cause) {
        return tx.inNewTransaction(em -> recorded(em, store.moveInstance(em, blocked.id(), InstanceStatus.BLOCKED, blocked.version(),
                InstanceStatus.RUNNING, null, cause))) == 1;
    }

    /**
     * An operator's change of {@code changed} rows: when it changed one, the operator's audit row is
     * written in its transaction (once per action: the first change that commits records it).
     */
    private static int recorded(EntityManager em, int changed) {
        if (changed == 1) {
            PendingAudit.recordIn(em);
        }
        return changed;
    }

    private InstanceRow mustFind(String instanceId) {
        return read(em -> queries.instance(em, instanceId))
                .orElseThrow(() -> Problem.notFound("no workflow instance " + instanceId));
    }
}
