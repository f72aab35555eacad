package io.cyclium.workflow;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.problem.Problem;
import io.cyclium.retry.RetryAlarm;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.Pauses;
import io.cyclium.runtime.EventStored;
import io.cyclium.runtime.Match;
import io.cyclium.runtime.Outcome;
import io.cyclium.runtime.RecoverySwept;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.Jsons;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.Tracing;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Workflows on this node: the {@link WorkflowEngine} wired to the container (the actor runtime
 * launches steps, the injected clock, the node's name in the journal), fed by terminal episode
 * events, recovery sweeps and bus events, and the operations the API and console call.
 */
@ApplicationScoped
public class Workflows {

    private static final Logger LOG = Logger.getLogger(Workflows.class.getName());

    /** Instances reconcile looks at per sweep, and retries the timer starts per tick. */
    static final int BATCH = 200;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    /** Why queued steps' episodes wait: provided by the operations tier (above this one). */
    @Inject
    jakarta.enterprise.inject.Instance<QueueReasons> queueReasons;

    @Inject
    NodeIdentity identity;

    @Inject
    ActorHost host;

    @Inject
    NodeModes modes;

    @Inject
    CycliumConfig config;

    @Inject
    Clock clock;

    @Inject
    Telemetry telemetry;

    @Inject
    Tracing tracing;

    @Inject
    WorkflowDiscovery discovery;

    @Inject
    RetryAlarm alarm;

    @Inject
    io.cyclium.episode.WaitAlarm waitAlarm;

    @Inject
    Pauses pauses;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService executor;

    private volatile WorkflowEngine engine;
    private volatile WorkflowDefinitions definitions;
    private volatile WorkflowQueries queries;
    private volatile InstanceGauges instanceGauges;

    private synchronized void init() {
        if (engine != null) {
            return;
        }
        WorkflowStore store = new WorkflowStore(DatabaseTime.of(vendor), identity.name());
        queries = new WorkflowQueries(vendor);
        definitions = new WorkflowDefinitions(tx, store, queries, () -> host.definitions());
        instanceGauges = new InstanceGauges(telemetry);
        SecureRandom random = new SecureRandom();
        engine = new WorkflowEngine(tx, store, queries, definitions::find, new RuntimeStepLauncher(host, tx), clock,
                telemetry, random::nextDouble).tracedBy(tracing).runsVersionsFrom(definitions::find);
        engine.onRetryStored(alarm::wake);
        engine.pausedBy(pauses::workflowPaused);
        engine.startsShareBatchesOf(host.sharedWrites());
        if (config.workflowAdvanceInCommit()) {
            // from now on a step's terminal write records the step and advances its instance itself
            host.advanceStepsWith(engine::finishInCommit);
        }
    }

    WorkflowEngine engine() {
        init();
        return engine;
    }

    WorkflowDefinitions definitions() {
        init();
        return definitions;
    }

    private WorkflowQueries queries() {
        init();
        return queries;
    }

    /**
     * Stores the @Workflow declarations found at deploy (called once the schema is migrated); the
     * demo's only with {@code cyclium.demo.enabled}, as its actor runs only then.
     */
    public void registerCodeDefinitions() {
        definitions().registerCode(discovery.definitions().stream().filter(d -> config.demoEnabled()
                || !discovery.declaringClass(d.id()).getName().startsWith("io.cyclium.demo.")).toList());
        warnOfUndeployedSteps();
    }

    /** Steps looked at by {@link #warnOfUndeployedSteps} at deploy. */
    static final int UNDEPLOYED_CHECKED = 1_000;

    /**
     * Instances in flight keep running the definition version they started with, even after this
     * deploy changed it; what a version cannot outlive is its code. Names (in the log, and as the
     * gauge workflow_steps_undeployed) the steps still to run whose actor or expectation this node
     * no longer deploys: they stay queued until a node that deploys them runs them.
     */
    private void warnOfUndeployedSteps() {
        List<String> undeployed = UndeployedSteps.of(tx.inNewTransaction(em -> queries().stepsToRun(em, UNDEPLOYED_CHECKED)),
                definitions()::find, host.definitions());
        int count = undeployed.size();
        telemetry.gauge("workflow_steps_undeployed", () -> count);
        if (!undeployed.isEmpty()) {
            LOG.warning(undeployed.size() + " step(s) of workflow instances in flight name an actor or expectation"
                    + " this node does not deploy; they stay queued until a node that deploys it runs them (or an"
                    + " operator cancels the instance): " + String.join("; ", undeployed.subList(0, Math.min(20,
                    undeployed.size()))) + (undeployed.size() > 20 ? "; ..." : ""));
        }
    }

    // ---- what drives the engine -------------------------------------------------------------

    /** A step's episode ended on this node (after its terminal commit). Never throws into the task. */
    void onFinished(@Observes EpisodeFinished event) {
        if (event.workflowInstanceId() == null || event.advancedInCommit()) {
            return; // not a step, or advanced in the step's own terminal write
        }
        BackgroundPass.run("workflow_advance", LOG, telemetry, () -> "Workflow instance " + event.workflowInstanceId()
                + " could not advance after episode " + event.episodeId() + " of step " + event.workflowStepId()
                + " ended; the next reconcile after a recovery sweep replays it", () -> engine().onFinished(event));
    }

    /**
     * After every recovery sweep: replay what no engine heard, launch what no node launched, run due
     * retries; then count the instances in flight for the workflow_instances gauges (one grouped
     * count of the in-flight rows, never at scrape time).
     */
    void onSwept(@Observes RecoverySwept swept) {
        if (modes.nodeMode() == NodeMode.DISABLED) {
            return;
        }
        BackgroundPass.run("workflow_reconcile", LOG, telemetry, () -> "Workflow reconcile on " + identity.name()
                + " failed; it runs again after the next recovery sweep", () -> {
                    engine().reconcile(swept.stack(), swept.anyStack(), swept.env(), BATCH);
                    instanceGauges.counted(tx.inNewTransaction(em -> queries().inFlightCounts(em)),
                            definitions().enabled().stream().map(WorkflowDefinition::id).toList());
                });
    }

    /**
     * Starts an instance of every enabled workflow this event triggers, in the publisher's thread
     * and transaction, and names each in the event's answer: stored, or coalesced into the instance
     * already in flight for the subject (the normal answer when the event repeats). Anything else
     * (the instance insert failed, the payload lacks the subject) is thrown to the publisher: the
     * event is not stored whole, and a 202 must not say it was.
     */
    void onEvent(@Observes EventStored stored) {
        for (WorkflowDefinition def : definitions().enabled()) {
            if (def.startedBy(stored.event().type(), stored.event().payload())) {
                stored.matched(startFor(def, stored));
            }
        }
    }

    /**
     * In the publisher's transaction (see {@link WorkflowEngine#startInCallerTransaction}); the
     * first steps are queued after its commit, on a container thread: the commit's own thread is
     * inside the transaction's completion and must not start new transactional work.
     */
    private Match startFor(WorkflowDefinition def, EventStored stored) {
        try {
            String id = engine().startInCallerTransaction(def, new WorkflowEngine.Start(stored.event().payload(), null, null,
                    config.stackSlug(), config.env(), "event " + stored.event().type()), this::advanceSoon);
            return Match.ofWorkflow(def.id(), Outcome.STORED, null, id);
        } catch (Problem p) {
            telemetry.count("workflow_start_refused", "workflow", def.id(), "status", String.valueOf(p.status()));
            if (p.status() == 409) {
                return Match.ofWorkflow(def.id(), Outcome.COALESCED, "in_flight", null);
            }
            throw p;
        }
    }

    private void advanceSoon(String instanceId) {
        Runnable advance = () -> BackgroundPass.run("workflow_advance", LOG, telemetry, () -> "Workflow instance "
                + instanceId + " was stored but could not queue its first steps; the next reconcile after a recovery"
                + " sweep does", () -> engine().advance(instanceId));
        try {
            executor.execute(advance);
        } catch (RuntimeException e) {
            // the executor refuses at shutdown: the instance is stored and pending, reconcile takes it
            LOG.warning(() -> "Workflow instance " + instanceId + " is stored; its first steps wait for the next"
                    + " reconcile (" + e + ")");
        }
    }

    /**
     * The timer's tick for schedule triggers: the current bucket of every enabled workflow's
     * {@code every} starts one instance across the cluster (payload {@code scheduledFor}).
     */
    public int startScheduled() {
        int started = 0;
        java.time.Instant now = clock.instant();
        for (WorkflowQueries.StoredDefinition d : definitions().known()) {
            if (!d.enabled()) {
                continue;
            }
            WorkflowDefinition def = definitions().parse(d);
            for (WorkflowTrigger t : def.triggers()) {
                if (!WorkflowTrigger.SCHEDULE.equals(t.type())) {
                    continue;
                }
                io.cyclium.timing.ScheduleBuckets buckets = io.cyclium.timing.ScheduleBuckets.every(java.time.Duration.parse(t.every()));
                JsonObject payload = Jsons.object()
                        .add("scheduledFor", buckets.bucketStart(now).toString()).build();
                if (engine().startForBucket(def, buckets.bucket(now), new WorkflowEngine.Start(payload, null, null,
                        config.stackSlug(), config.env(), "schedule " + t.every())).isPresent()) {
                    started++;
                }
            }
        }
        return started;
    }

    /** The retry timer's tick: due retries, claimed once across the cluster. */
    public int runDueRetries() {
        return engine().runDueRetries(BATCH);
    }

    /**
     * The idle timer's one statement ({@link WorkflowQueries#pulse}): the definitions' versions go
     * to the cache (re-read on the next use when another node changed one), and the earliest due
     * retry, steps' or episodes', to the alarm, and the earliest due sleep or wait timeout to the
     * {@link io.cyclium.episode.WaitAlarm}, all measured on the database's clock.
     */
    public void pulse() {
        init();
        WorkflowQueries.Pulse p = tx.inNewTransaction(em -> queries.pulse(em));
        definitions.seen(p.definitions());
        pauses.heard(p.pauses());
        LocalDateTime earliest = p.stepRetryDue() == null ? p.episodeRetryDue() : p.episodeRetryDue() == null
                ? p.stepRetryDue() : p.stepRetryDue().isBefore(p.episodeRetryDue()) ? p.stepRetryDue() : p.episodeRetryDue();
        alarm.heard(earliest == null ? null : java.time.Duration.between(p.now(), earliest));
        // a sleeper stored by any node, also one that died since: this node's due pass runs when it is due
        waitAlarm.wake(p.waitDue() == null ? null : java.time.Duration.between(p.now(), p.waitDue()));
    }

    // ---- definitions ------------------------------------------------------------------------

    public List<WorkflowView> workflows() {
        Map<String, Map<String, Long>> counts = new HashMap<>();
        Map<String, LocalDateTime> last = new HashMap<>();
        for (Object[] row : tx.inNewTransaction(em -> queries().statusCounts(em))) {
            String wf = (String) row[0];
            counts.computeIfAbsent(wf, k -> new LinkedHashMap<>()).put((String) row[1], ((Number) row[2]).longValue());
            LocalDateTime t = WorkflowQueries.time(row[3]);
            last.merge(wf, t, (a, b) -> a.isAfter(b) ? a : b);
        }
        List<WorkflowView> out = new ArrayList<>();
        for (WorkflowQueries.StoredDefinition d : definitions().all()) {
            out.add(view(d, counts.getOrDefault(d.workflowId(), Map.of()), last.get(d.workflowId())));
        }
        return out;
    }

    public WorkflowView workflow(String id) {
        return workflows().stream().filter(w -> w.id().equals(id)).findFirst()
                .orElseThrow(() -> Problem.notFound("no workflow " + id));
    }

    private WorkflowView view(WorkflowQueries.StoredDefinition d, Map<String, Long> byStatus, LocalDateTime last) {
        long completed = byStatus.getOrDefault(InstanceStatus.COMPLETED, 0L);
        long finished = completed + byStatus.getOrDefault(InstanceStatus.FAILED, 0L)
                + byStatus.getOrDefault(InstanceStatus.CANCELED, 0L);
        return new WorkflowView(d.workflowId(), d.origin(), d.enabled(), d.updatedAt(), d.documentVersion(),
                JsonText.parseObject(d.document()),
                Map.copyOf(byStatus), last, finished == 0 ? null : (double) completed / finished,
                pauses.workflowPaused(d.workflowId()));
    }

    /**
     * Every stored version of a workflow's definition, newest first, with the count of instances in
     * flight that run each.
     */
    public List<DefinitionVersionView> versions(String id) {
        WorkflowQueries.StoredDefinition current = definitions().all().stream().filter(d -> d.workflowId().equals(id))
                .findFirst().orElseThrow(() -> Problem.notFound("no workflow " + id));
        Map<Long, Long> inFlight = tx.inNewTransaction(em -> queries().inFlightByVersion(em, id));
        return definitions().versions(id).stream().map(v -> new DefinitionVersionView(id, v.version(), v.origin(),
                v.createdAt(), v.version() == current.documentVersion(), inFlight.getOrDefault(v.version(), 0L),
                JsonText.parseObject(v.document()))).toList();
    }

    public WorkflowView put(String id, JsonObject document) {
        definitions().put(id, document);
        return workflow(id);
    }

    /**
     * Reconciles this node's in-flight instances now (after a workflow's resume): the steps queued
     * without an episode while it was paused get theirs, here, without waiting for the next sweep.
     */
    public int reconcileNow() {
        return engine().reconcile(config.stackSlug(), config.stackSlug() == null, config.env(), BATCH);
    }

    /** Whether a workflow of this id is stored (a 404 otherwise). */
    public void mustExist(String id) {
        definitions().stored(id).orElseThrow(() -> Problem.notFound("no workflow " + id));
    }

    public WorkflowView setEnabled(String id, boolean enabled) {
        definitions().setEnabled(id, enabled);
        return workflow(id);
    }

    // ---- instances --------------------------------------------------------------------------

    /** Starts the whole DAG, or an outcome (its target step and that step's transitive dependencies). */
    public InstanceView start(String workflowId, String outcome, JsonObject payload, String subject, String by) {
        return startAll(workflowId, List.of(new StartRequest(outcome, payload, subject)), by).get(0);
    }

    /** One instance to start: the whole DAG or an outcome, its payload, its subject (null: from the payload). */
    public record StartRequest(String outcome, JsonObject payload, String subject) {
    }

    /**
     * Starts a list of instances in one transaction, all or none ({@link WorkflowEngine#startAll}),
     * and answers them as stored (one read of them all, in that transaction).
     */
    public List<InstanceView> startAll(String workflowId, List<StartRequest> requests, String by) {
        WorkflowQueries.StoredDefinition stored = definitions().stored(workflowId)
                .orElseThrow(() -> Problem.notFound("no workflow " + workflowId));
        if (!stored.enabled()) {
            throw Problem.conflict("workflow " + workflowId + " is disabled: enable it to start instances");
        }
        if (host.draining()) {
            throw Problem.unavailable("node " + identity.name() + " is shutting down and starts no instances: try another node");
        }
        return engine().startAllAndRead(definitions().parse(stored), requests.stream().map(r -> new WorkflowEngine.Start(
                r.payload(), r.subject(), r.outcome(), config.stackSlug(), config.env(), "started by " + by)).toList())
                .stream().map(InstanceView::of).toList();
    }

    /** Newest first, keyset-paged on (started_at, id). */
    public List<InstanceView> instances(WorkflowQueries.InstanceFilter filter, int limit) {
        return tx.inNewTransaction(em -> queries().instances(em, filter, limit)).stream().map(InstanceView::of).toList();
    }

    public InstanceDetail detail(String instanceId) {
        record Read(InstanceRow row, List<StepRow> steps, java.util.Set<String> started, List<TransitionRow> transitions,
                Map<String, String> waiting) {
        }
        // one transaction for every read of the page: one BEGIN/COMMIT, and a consistent picture
        Read read = tx.inNewTransaction(em -> {
            InstanceRow row = queries().instance(em, instanceId).orElse(null);
            if (row == null) {
                return null;
            }
            List<StepRow> steps = queries().steps(em, instanceId);
            boolean anyQueued = steps.stream().anyMatch(s -> StepState.QUEUED.equals(s.state()) && s.episodeId() != null);
            return new Read(row, steps, anyQueued ? queries().queuedButStarted(em, instanceId) : java.util.Set.of(),
                    queries().transitions(em, instanceId), anyQueued ? waiting(em, steps) : Map.of());
        });
        if (read == null) {
            throw Problem.notFound("no workflow instance " + instanceId);
        }
        InstanceRow row = read.row();
        Optional<WorkflowDefinition> def = definitions().find(row.workflowId(), row.definitionVersion());
        Map<String, StepRow> steps = new HashMap<>();
        read.steps().forEach(s -> steps.put(s.stepId(), s));
        List<StepView> ordered = new ArrayList<>();
        if (def.isPresent()) {
            def.get().steps().stream().filter(d -> steps.containsKey(d.id()))
                    .forEach(d -> ordered.add(StepView.of(steps.remove(d.id()), d, read.started().contains(d.id()),
                            read.waiting().get(d.id()))));
        }
        steps.values().forEach(s -> ordered.add(StepView.of(s, null, read.started().contains(s.stepId()),
                read.waiting().get(s.stepId()))));
        return new InstanceDetail(InstanceView.of(row), row.payload(), ordered, read.transitions(),
                row.stats() == null ? null : JsonText.parseObject(row.stats()));
    }

    /**
     * Why each queued step's episode waits, by step id: its own key's limit, its expectation's, a
     * rate (what the episode page says too). Only for a page with queued steps: one read of their
     * episodes and one count per distinct limit.
     */
    private Map<String, String> waiting(jakarta.persistence.EntityManager em, List<StepRow> steps) {
        Map<String, String> stepOf = new HashMap<>();
        List<io.cyclium.episode.EpisodeEntity> episodes = new ArrayList<>();
        for (StepRow s : steps) {
            if (StepState.QUEUED.equals(s.state()) && s.episodeId() != null) {
                io.cyclium.episode.EpisodeEntity e = em.find(io.cyclium.episode.EpisodeEntity.class, s.episodeId());
                if (e != null) {
                    stepOf.put(e.id, s.stepId());
                    episodes.add(e);
                }
            }
        }
        Map<String, String> why = new HashMap<>();
        if (queueReasons != null && queueReasons.isResolvable()) {
            queueReasons.get().of(em, episodes).forEach((episodeId, reason) -> why.put(stepOf.get(episodeId), reason));
        }
        return why;
    }

    public InstanceDetail cancel(String instanceId, String by) {
        engine().cancel(instanceId, by);
        return detail(instanceId);
    }

    public InstanceDetail resume(String instanceId, String by) {
        engine().resume(instanceId, by);
        return detail(instanceId);
    }

    public InstanceDetail retryStep(String instanceId, String stepId, String by) {
        engine().retryStep(instanceId, stepId, by);
        return detail(instanceId);
    }

    public InstanceDetail approve(String instanceId, String stepId, String by) {
        engine().approve(instanceId, stepId, by);
        return detail(instanceId);
    }

    /** A signal for an instance: opens its steps' signal gates of that name (see {@link WorkflowEngine#signal}). */
    public InstanceDetail signal(String instanceId, String name, jakarta.json.JsonValue payload, String by) {
        engine().signal(instanceId, io.cyclium.episode.WaitStore.checkSignalName(name, "name"), payload, by);
        return detail(instanceId);
    }
}
