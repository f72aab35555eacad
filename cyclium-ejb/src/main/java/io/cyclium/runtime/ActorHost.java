package io.cyclium.runtime;

import java.util.UUID;

import io.cyclium.problem.Problem;

import java.time.Duration;

import io.cyclium.timing.Jitter;

import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.store.DatabaseVendor;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.ActorDiscovery;
import io.cyclium.actor.CycliumEvent;

import io.cyclium.claims.ClaimGate;
import io.cyclium.claims.HeldClaim;
import io.cyclium.config.CycliumConfig;
import io.cyclium.execution.ConvergeEffects;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.execution.TaskEnvironment;
import io.cyclium.execution.LocalRunner;
import io.cyclium.execution.RunControl;
import io.cyclium.execution.StepAdvancement;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.store.GroupCommit;
import io.cyclium.store.OneTransactionForAList;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.Tracing;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The actors running on this node: builds one {@link ActorRuntime} per discovered actor that may
 * run here (mode, stacks), routes bus events to them, arms their schedules, and owns the local
 * runner that executes episodes on the container's ManagedExecutorService.
 */
@ApplicationScoped
public class ActorHost {

    private static final Logger LOG = Logger.getLogger(ActorHost.class.getName());

    /** Cyclium's ManagedExecutorService for episode tasks (defined on {@link ActorBootstrap}). */
    public static final String EPISODE_EXECUTOR = "java:app/cyclium/EpisodeExecutor";
    /** The most tasks it runs at once (a definition's limit is fixed when the application is built). */
    public static final int EPISODE_EXECUTOR_MAX_ASYNC = io.cyclium.config.CycliumConfigReader.MANAGED_EXECUTOR_MAX_THREADS;
    /** Its context: the application's only. */
    public static final String EPISODE_CONTEXT = "java:app/cyclium/EpisodeContext";

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ActorDiscovery discovery;

    @Inject
    Clock clock;

    @Inject
    io.cyclium.episode.WaitAlarm waitAlarm;

    @Inject
    Telemetry telemetry;

    @Inject
    Tracing tracing;

    @Inject
    ConvergeEffects effects;

    @Inject
    NodeModes modes;

    @Inject
    ClaimGate claims;

    @Inject
    Event<EpisodeFinished> finishedEvents;

    @Inject
    Event<EventStored> storedEvents;

    @Inject
    Event<io.cyclium.episode.EpisodeProgressed> progressedEvents;

    @Inject
    @Any
    Instance<Object> beans;

    @Resource(lookup = "java:comp/DefaultManagedThreadFactory")
    ManagedThreadFactory threadFactory;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService timers;

    @Inject
    Pauses pauses;

    private final Map<String, ActorRuntime> runtimes = new ConcurrentHashMap<>();
    private final Map<String, String> notRunningWhy = new ConcurrentHashMap<>();
    private volatile LocalRunner runner;
    private volatile ExecutorService episodeThreads;
    /** Threads for the queues' hand-over admission passes (see ActorRuntime#handingOffTo). */
    private volatile ExecutorService handOffPasses;
    /** The cluster-wide limits' gate, and the timer that keeps its reserves of slots. */
    private volatile ClusterConcurrency concurrency;
    private volatile java.util.concurrent.ScheduledFuture<?> keepBlocks;
    private volatile ScheduledTriggers schedules;
    private volatile EpisodeStore store;
    private volatile GroupCommit groupCommit;
    /** The workflow engine's advancement in a step's terminal write, once the workflows are wired (none before). */
    private volatile StepAdvancement advancement = StepAdvancement.NONE;

    /** Builds the runtimes and arms schedules. Called once by {@link ActorBootstrap} after the node row exists. */
    public synchronized void start() {
        if (runner != null) {
            return;
        }
        StrategyBeans strategyBeans = new StrategyBeans(discovery, beans);
        strategyBeans.check();
        store = new EpisodeStore(vendor);
        // Episode rows, journal rows and terminal writes of many tasks share transactions (one writer
        // commits what all of them handed over meanwhile); writes in host code's transaction do not.
        groupCommit = GroupCommit.start(tx, threadFactory, config.groupCommitMax(), config.groupCommitWriters(),
                size -> telemetry.record("group_commit_writes", size),
                // pgjdbc reports a count per batched statement; the others are not verified here
                vendor == DatabaseVendor.POSTGRESQL)
                // a write no writer took within a lease answers an error (a 503 for an event) instead of waiting
                .handOverDeadline(Duration.ofSeconds(config.leaseSeconds()));
        // A task keeps trying a write through a database outage for two leases (its lease cannot
        // be taken from it before it has lapsed), then gives the episode up to recovery.
        // cluster-wide limits: taken in a fresh episode's storing transaction or on their own, given
        // back in its terminal write (the task environment's held slots)
        // blocks of slots held in reserve stand as long as a lease: a node that died frees them as late as its episodes' slots
        ClusterConcurrency concurrency = new ClusterConcurrency(tx, groupCommit, vendor, identity.name(), config.flow().recheck(),
                Duration.ofSeconds(config.leaseSeconds()), System::nanoTime);
        this.concurrency = concurrency;
        long keepMs = concurrency.keepBlocksEvery().toMillis();
        keepBlocks = timers.scheduleWithFixedDelay(() -> BackgroundPass.run("slot_reserve", LOG, telemetry,
                () -> "Could not keep this node's reserves of concurrency slots; tried again in " + keepMs + " ms",
                concurrency::keepBlocks), keepMs, keepMs, TimeUnit.MILLISECONDS);
        TaskEnvironment env = new TaskEnvironment(groupCommit, store, strategyBeans, claims, effects,
                finishedEvents::fire, clock, identity.name(), telemetry, progressedEvents::fire,
                Duration.ofSeconds(2L * config.leaseSeconds()), tracing)
                // a task that blocks with a due time sets this node's alarm (RecoverySweep's DueWakeTimer)
                .withWaits(new io.cyclium.episode.WaitStore(vendor).withAlarm(waitAlarm))
                .withHeldSlots(concurrency)
                // read at each terminal write: the workflows are wired after the runtimes start
                .withAdvancement(new StepAdvancement() {
                    @Override
                    public java.util.Optional<Runnable> inTerminalWrite(EntityManager em, io.cyclium.episode.EpisodeFinished finished) {
                        return advancement.inTerminalWrite(em, finished);
                    }

                    @Override
                    public boolean advances() {
                        return advancement.advances();
                    }
                });
        episodeThreads = config.episodeExecutor() == CycliumConfig.EpisodeExecutor.MANAGED
                ? new BoundedManagedExecutor(ActorHost::managedExecutor, config.executorThreads())
                : EpisodeThreads.start(threadFactory, config.executorThreads());
        runner = new LocalRunner(env, episodeThreads, new TriggerRequestStore(vendor));
        // the queues' hand-over passes: threads of the managed factory, no context captured per task
        ThreadPoolExecutor passes = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
        passes.allowCoreThreadTimeOut(true);
        handOffPasses = passes;
        schedules = new ScheduledTriggers(timers, clock, telemetry, config.env());
        Jitter jitter = new Jitter(Duration.ofMillis(config.jitterMaxMs()));
        for (ActorDefinition def : discovery.definitions()) {
            if (!config.demoEnabled() && def.beanClass().getName().startsWith("io.cyclium.demo.")) {
                notRunningWhy.put(def.id(), "demo actors are off (cyclium.demo.enabled=false)");
                continue;
            }
            if (!def.runsOnStack(config.stackSlug())) {
                notRunningWhy.put(def.id(), "declared for stacks " + def.stacks() + ", this node is stack "
                        + (config.stackSlug() == null ? "(unset)" : config.stackSlug()));
                continue;
            }
            int slots = def.maxConcurrent() > 0 ? def.maxConcurrent() : config.maxConcurrentDefault();
            String actorId = def.id();
            ActorRuntime rt = new ActorRuntime(def, slots, runner, new ActorRuntime.Context(timers, clock, telemetry,
                    identity.name(), config.stackSlug(), config.env(), jitter, () -> modes.modeFor(actorId), tracing))
                    .pausedBy(pauses)
                    .keyFunctionsFrom(type -> beans.select(type).get())
                    // only an actor that declares a limit or priorities: the others' path is as it was
                    .handingOffTo(handOffPasses)
                    .limitedBy(concurrency, config.flow().recheck(), config.flow().aging());
            runtimes.put(def.id(), rt);
        }
        // the table before the first trigger: a node starting while something is paused holds it from the start
        try {
            pauses.refresh();
        } catch (RuntimeException e) {
            LOG.warning(() -> "Could not read the paused actors at start (" + e + "); the first workflow pulse reads them");
        }
        pauses.onChange(() -> runtimes.values().forEach(ActorRuntime::wake));
        runtimes.values().forEach(schedules::arm);
        LOG.info(() -> "Cyclium node " + identity.name() + " runs actors " + runtimes.keySet()
                + (notRunningWhy.isEmpty() ? "" : "; not here: " + notRunningWhy) + "; episode tasks on "
                + (config.episodeExecutor() == CycliumConfig.EpisodeExecutor.MANAGED ? EPISODE_EXECUTOR + ", at most "
                        : "a pool of managed threads, ") + config.executorThreads() + " at once");
    }

    private static jakarta.enterprise.concurrent.ManagedExecutorService managedExecutor() {
        try {
            return javax.naming.InitialContext.doLookup(EPISODE_EXECUTOR);
        } catch (javax.naming.NamingException e) {
            throw new IllegalStateException("cyclium.episode.executor=managed, but the container has no " + EPISODE_EXECUTOR
                    + " (defined by the application's web module, EpisodeExecutorDefinition): " + e, e);
        }
    }

    /**
     * What a workflow step's terminal write does in its transaction from now on (the workflow
     * engine's: record the step, advance the instance, store the next steps' episodes).
     */
    public void advanceStepsWith(StepAdvancement advancement) {
        this.advancement = advancement == null ? StepAdvancement.NONE : advancement;
    }

    /**
     * The node's shared writes (its group commit), for a write of another capability that commits
     * as an episode's writes do (a workflow start of one instance). Resolved at each write: before
     * {@link #start}, and after the shutdown closed the group commit, a transaction of its own.
     */
    public Tx sharedWrites() {
        return new Tx() {
            @Override
            public <T> T inNewTransaction(Function<EntityManager, T> work) {
                return tx.inNewTransaction(work);
            }

            @Override
            public <T> T inGroupTransaction(Function<EntityManager, T> work) {
                return inGroupTransaction(null, work);
            }

            @Override
            public <T> T inGroupTransaction(String lockOrder, Function<EntityManager, T> work) {
                GroupCommit writes = groupCommit;
                return writes != null ? writes.inGroupTransaction(lockOrder, work) : tx.inGroupTransaction(work);
            }
        };
    }

    private volatile boolean draining;

    /** The node is shutting down: no new triggers, no recovery restarts here. */
    public void beginDrain() {
        draining = true;
        stopTriggers();
    }

    public boolean draining() {
        return draining;
    }

    /**
     * The application is going down, after the drain: the episode threads take no new task and
     * end once idle. Tasks still running are left to finish (or to the lease and the sweep).
     */
    public void releaseThreads() {
        ExecutorService threads = episodeThreads;
        if (threads != null) {
            threads.shutdown();
        }
        ExecutorService passes = handOffPasses;
        if (passes != null) {
            passes.shutdown();
        }
        java.util.concurrent.ScheduledFuture<?> keeping = keepBlocks;
        if (keeping != null) {
            keeping.cancel(false);
        }
        ClusterConcurrency limits = concurrency;
        if (limits != null) {
            // numbers no episode holds go back at once; the lent ones when their block's life ends
            BackgroundPass.run("slot_reserve", LOG, telemetry, () -> "Could not give back this node's reserves of"
                    + " concurrency slots at shutdown; they are freed when their life ends", limits::giveBackBlocks);
        }
        GroupCommit writes = groupCommit;
        if (writes != null) {
            // what is still queued commits; a task finishing later writes alone
            writes.close();
        }
    }

    /** Stops triggers (schedules, debounce, new fires). Running tasks are the drainer's business. */
    public synchronized void stopTriggers() {
        if (schedules != null) {
            schedules.stop();
        }
        runtimes.values().forEach(ActorRuntime::stopAccepting);
    }

    /**
     * Routes a bus event to every matching expectation and returns actor → (expectation → dedupe
     * key), as {@link #accept} does with each match's outcome.
     */
    public Map<String, Map<String, String>> publish(CycliumEvent event) {
        return accept(event).keys();
    }

    /**
     * Routes a bus event to every matching expectation (and every workflow it starts) and returns,
     * per match, what was stored and what was not and why, once everything it stored is stored — in
     * the caller's transaction when there is one. A refusal of the trigger itself (cooling down,
     * dropped, disabled) is an answer, not an exception. A draining or not yet started node, or a
     * database that refused a write, is a 503 {@link Problem}: nothing of it can be counted on. An
     * event stored for some actors before a failure is safe to send again: its dedupe keys turn the
     * repeats into duplicates.
     */
    public EventAnswer accept(CycliumEvent event) {
        EventAnswer answer = route(event);
        countReceived(answer);
        return answer;
    }

    private void countReceived(EventAnswer answer) {
        telemetry.count("event_received", "type", answer.event().type(), "matched", String.valueOf(!answer.matches().isEmpty()));
        for (Match m : answer.matches()) {
            if (!m.outcome().stored()) {
                telemetry.count("event_refused", "reason", m.outcome().wireName());
            }
        }
    }

    /** {@link #accept} without counting the event received (a list counts once it is stored). */
    private EventAnswer route(CycliumEvent event) {
        if (runner == null || draining) {
            telemetry.count("event_refused", "reason", draining ? "draining" : "starting");
            throw Problem.unavailable("node " + identity.name() + (draining ? " is shutting down" : " has not started yet")
                    + " and takes no new triggers; event " + event.type() + " was not stored: send it to another node");
        }
        List<Match> matches = new java.util.ArrayList<>();
        for (ActorRuntime rt : runtimes.values()) {
            try {
                matches.addAll(rt.admit(event));
            } catch (Problem p) {
                telemetry.count("event_refused", "reason", "stopping");
                throw p;
            } catch (RuntimeException e) {
                throw storeFailed(event, "actor " + rt.definition().id(), e);
            }
        }
        EventStored stored = new EventStored(event);
        try {
            storedEvents.fire(stored);
        } catch (Problem p) {
            throw p;
        } catch (RuntimeException e) {
            throw storeFailed(event, "the workflows it starts", unwrapObserver(e));
        }
        matches.addAll(stored.matches());
        return new EventAnswer(event, matches);
    }

    private Problem storeFailed(CycliumEvent event, String forWhat, Throwable e) {
        if (e instanceof Problem p) {
            return p;
        }
        String id = UUID.randomUUID().toString();
        LOG.log(Level.WARNING, "Event " + event.type() + " could not be stored for " + forWhat + " (error " + id + ")", e);
        telemetry.count("event_refused", "reason", "store_failed");
        return Problem.unavailable("event " + event.type() + " could not be stored for " + forWhat
                + " (the database refused it; server log error " + id + "). Send it again: whatever was"
                + " stored before the failure is deduplicated by the event's dedupe key.");
    }

    /** What an observer threw: the container may wrap it (an EJB call inside the observer). */
    private static Throwable unwrapObserver(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof jakarta.ejb.EJBException || cause instanceof jakarta.enterprise.event.ObserverException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * {@link #accept} for each event, all in one transaction of their own: everything the events
     * stored is stored when this returns, or — on any failure — none of it is, and the caller hears
     * a {@link Problem} (503 when sending the whole list again may succeed). A commit whose outcome
     * is unknown (its answer lost with the connection) runs the list once more, where what it stored
     * answers as stored ({@link OneTransactionForAList}). One commit for the lot
     * instead of one per event; the episodes start once it committed. Returns, per event in the
     * given order, its matches and their outcomes. A transaction marked to roll back by a statement
     * that failed on the way (MariaDB and H2 go on after one) is a 503 too, never an answer.
     *
     * <p>The episode rows and first leases go to the database as JDBC batches where the driver
     * counts each batched statement (PostgreSQL: {@link GroupCommit#inRecordedTransaction}). When
     * one of them finds its key taken (an event sent again, or twice in one list) that transaction
     * rolls back whole and the list runs once more the ordinary way, statement by statement, where
     * a taken key is a duplicate as always: twice the work for such a list, never a wrong answer.
     */
    public List<EventAnswer> publishAll(List<CycliumEvent> events) {
        Function<EntityManager, List<EventAnswer>> all = em -> {
            List<EventAnswer> routed = new java.util.ArrayList<>(events.size());
            for (CycliumEvent event : events) {
                routed.add(route(event));
            }
            if (tx.rollbackOnly(em)) {
                throw Problem.unavailable("a statement of the batch of " + events.size() + " events failed and its"
                        + " transaction rolls back; none of it was stored. Send it again: dedupe keys make repeats of"
                        + " anything stored duplicates.");
            }
            return routed;
        };
        try {
            // a second run when the first one's commit outcome is unknown: see OneTransactionForAList
            List<EventAnswer> routed = OneTransactionForAList.run(tx, groupCommit, all, () -> telemetry.count("event_batch_rerun"));
            // counted once stored: a rerun list is received once
            routed.forEach(this::countReceived);
            return routed;
        } catch (Problem p) {
            throw p;
        } catch (RuntimeException e) {
            Throwable cause = unwrapObserver(e);
            if (cause instanceof Problem p) {
                throw p;
            }
            // the database refused or went away, also on the second run of a commit whose answer was lost
            String id = UUID.randomUUID().toString();
            LOG.log(Level.WARNING, "A batch of " + events.size() + " events could not be committed (error " + id + ")", e);
            telemetry.count("event_refused", "reason", "store_failed");
            throw Problem.unavailable("the batch of " + events.size() + " events could not be stored (server log error "
                    + id + "). Send it again: dedupe keys make repeats of anything stored duplicates.");
        }
    }

    /**
     * Host code fires {@link CycliumEvent}s as CDI events; they arrive here, in the firing thread and
     * transaction: when {@code fire} returns, the episodes are stored with the caller's transaction
     * (and start after it commits), and a failure to store is thrown back to the caller. A match
     * refused by the actor's own rules (cooling down, dropped, disabled) is counted as
     * {@code event_refused}; host code that must know calls {@link #accept} instead of firing.
     */
    void onBusEvent(@Observes CycliumEvent event) {
        publish(event);
    }

    void onFinished(@Observes EpisodeFinished event) {
        ActorRuntime rt = runtimes.get(event.actorId());
        if (rt != null) {
            rt.finished(event);
        }
    }

    public Optional<ActorRuntime> runtime(String actorId) {
        return Optional.ofNullable(runtimes.get(actorId));
    }

    public Collection<ActorRuntime> runtimes() {
        return runtimes.values();
    }

    /** Every discovered actor with what this node does with it. */
    public java.util.List<ActorView> views() {
        return discovery.definitions().stream().map(def -> ActorView.of(def, runtimes.get(def.id()),
                notRunningWhy.get(def.id()), modes.modeFor(def.id()).wireName(), pauses)).toList();
    }

    /** Why a discovered actor does not run on this node (console and status). */
    public Map<String, String> notRunning() {
        return Map.copyOf(notRunningWhy);
    }

    public Optional<ActorDefinition> definition(String actorId) {
        return discovery.definitions().stream().filter(a -> a.id().equals(actorId)).findFirst();
    }

    public Collection<ActorDefinition> definitions() {
        return discovery.definitions();
    }

    public Optional<RunControl> localControl(String episodeId) {
        return runner == null ? Optional.empty() : runner.control(episodeId);
    }

    public Collection<RunControl> localRunning() {
        return runner == null ? java.util.List.of() : runner.running();
    }

    /**
     * Every lease some piece of this node is using for an episode: the tasks running here and the
     * leases handed to episodes waiting in an actor's queue (the heartbeat audits the rest).
     */
    public java.util.Set<HeldClaim> claimsInUse() {
        java.util.Set<HeldClaim> inUse = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (RunControl c : localRunning()) {
            HeldClaim claim = c.claim();
            if (claim != null) {
                inUse.add(claim);
            }
        }
        for (ActorRuntime rt : runtimes.values()) {
            inUse.addAll(rt.queuedClaims());
        }
        if (runner != null) {
            inUse.addAll(runner.firstLeases());
        }
        return inUse;
    }

    /**
     * The episodes some piece of this node holds now: a task runs it, an actor's queue or slot has
     * it. A row marked queued on this node that is in none of them is held by nobody (its task died,
     * its start failed): the heartbeat stops vouching for it.
     */
    public java.util.Set<String> episodesHeld() {
        java.util.Set<String> held = new java.util.HashSet<>();
        for (ActorRuntime rt : runtimes.values()) {
            rt.heldInto(held);
        }
        for (RunControl c : localRunning()) {
            held.add(c.episodeId());
        }
        return held;
    }

    public EpisodeStore store() {
        return store;
    }

    /** Runs an episode a trigger-only node deferred (the poller's hand-off); false when the actor is not here. */
    public boolean dispatch(String actorId, String episodeId, boolean resume) {
        return dispatch(actorId, null, episodeId, resume);
    }

    /** {@link #dispatch} with the episode's expectation (null: unknown), which a pause of it holds. */
    public boolean dispatch(String actorId, String expectationId, String episodeId, boolean resume) {
        return toRuntime(actorId, rt -> rt.dispatch(episodeId, resume, expectationId));
    }

    /** Hands a recovered episode (and the claim recovery took) to its actor; false when the actor is not here. */
    public boolean recover(String actorId, String episodeId, HeldClaim claim) {
        return recover(actorId, null, episodeId, claim);
    }

    /** {@link #recover} with the episode's expectation (null: unknown), which a pause of it holds. */
    public boolean recover(String actorId, String expectationId, String episodeId, HeldClaim claim) {
        return toRuntime(actorId, rt -> rt.recover(episodeId, claim, expectationId));
    }

    private boolean toRuntime(String actorId, java.util.function.Consumer<ActorRuntime> handOver) {
        ActorRuntime rt = runtimes.get(actorId);
        if (rt == null) {
            return false;
        }
        handOver.accept(rt);
        return true;
    }
}
