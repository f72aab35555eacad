package io.cyclium.recovery;

import io.cyclium.claims.ClaimGate;
import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.WaitAlarm;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Finds running episodes nobody drives — stale journals after a hard stop, or rows a drain stamped
 * interrupted — and restarts or fails each exactly once across the cluster: the timer around
 * {@link OrphanRecovery}, which holds the logic. Each sweep first wakes due sleepers and times out
 * due waits ({@link DueWaits}), the backstop of the {@link DueWakeTimer}: that one runs the due
 * pass at the instant the node's {@link WaitAlarm} is due, on the managed scheduled executor — off
 * this bean's (container WRITE) lock, so a slow sweep holds back no wake and a wake no sweep — and
 * an idle node schedules nothing. Its task calls the {@link DueWaits} object directly, never this
 * bean's business methods; the sweep's pass and the timer's may run at once, which costs at most a
 * read (the wait row's guarded DELETE decides who wakes an episode, as between two nodes).
 */
@Singleton
@Startup
@DependsOn("TriggerPoller")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RecoverySweep {

    private static final Logger LOG = Logger.getLogger(RecoverySweep.class.getName());

    private static final String SWEEP_TIMER = "cyclium-recovery-sweep";

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    LocalActors actors;

    @Inject
    ClaimGate claims;

    @Inject
    Telemetry telemetry;

    @Inject
    Event<EpisodeFinished> finished;

    @Inject
    Instance<RecoveryPolicyResolver> resolvers;

    @Inject
    Event<io.cyclium.runtime.RecoverySwept> swept;

    @Inject
    WaitAlarm alarm;

    @Inject
    java.time.Clock clock;

    @Resource
    TimerService timers;

    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService executor;

    private OrphanRecovery recovery;
    private DueWaits dueWaits;
    private DueWakeTimer dueWakes;
    private io.cyclium.runtime.IdleSlotCleanup idleSlots;

    @PostConstruct
    void start() {
        recovery = new OrphanRecovery(config, identity.name(), tx, new RecoveryStore(vendor), claims, actors, resolvers,
                finished::fire, telemetry);
        idleSlots = new io.cyclium.runtime.IdleSlotCleanup(tx, vendor, clock);
        io.cyclium.episode.WaitStore waits = new io.cyclium.episode.WaitStore(vendor).withAlarm(alarm);
        dueWaits = new DueWaits(tx, waits, new io.cyclium.episode.WaitResolution(new io.cyclium.episode.EpisodeStore(vendor), waits),
                identity.name(), actors, telemetry);
        // Armed whatever the boot mode: the mode can change at runtime, and each sweep checks it.
        timers.createIntervalTimer(config.recoveryInitialDelay().toMillis(), config.recoveryInterval().toMillis(),
                new TimerConfig(SWEEP_TIMER, false));
        dueWakes = new DueWakeTimer(executor, alarm, () -> wakeDue(() -> dueWaits.wakeRung(config.env()))).start();
    }

    /** Before the application's executor and pools go: no due pass starts after this (one in flight is awaited). */
    @PreDestroy
    void stop() {
        if (dueWakes != null) {
            dueWakes.stop();
        }
    }

    @Timeout
    void onTimer() {
        BackgroundPass.run("recovery_sweep", LOG, telemetry, () -> "Recovery sweep on " + identity.name()
                + " failed; the next one runs in " + config.recoveryInterval().toMillis() + " ms", () -> {
                    SweepReport r = sweep(SweepScope.of(config.stackSlug(), config.env()));
                    if (r.found() > 0) {
                        LOG.info(() -> "Recovery sweep on " + identity.name() + ": " + r);
                    }
                });
        // its own pass: a failed clean-up is logged and counted apart, and never holds back a sweep
        BackgroundPass.run("idle_slot_cleanup", LOG, telemetry, () -> "Deleting idle concurrency-slot rows on "
                + identity.name() + " failed; the next sweep tries again", () -> {
                    int gone = idleSlots.runIfDue();
                    if (gone > 0) {
                        LOG.fine(() -> "Deleted " + gone + " concurrency-slot rows idle for a day on " + identity.name());
                    }
                });
    }

    /** A due-time pass of the durable timers: its failure is logged and counted, and never stops the sweep. */
    private boolean wakeDue(java.util.function.IntSupplier pass) {
        return BackgroundPass.run("wait_due_pass", LOG, telemetry, () -> "Waking due sleepers on " + identity.name()
                + " failed; the due-wake timer tries again in " + DueWakeTimer.AFTER_FAILURE.toMillis()
                + " ms, the sweep every " + config.recoveryInterval().toMillis() + " ms", () -> {
                    int woke = pass.getAsInt();
                    if (woke > 0) {
                        LOG.fine(() -> "Woke " + woke + " due sleepers or timed-out waits on " + identity.name());
                    }
                });
    }

    /**
     * One sweep over the given scope (also the API's "run the sweep now"), then the workflow
     * engine's reconcile of that scope (observers of {@link io.cyclium.runtime.RecoverySwept}).
     */
    public SweepReport sweep(SweepScope scope) {
        // due sleepers and timed-out waits first: one whose actor does not run here is left
        // resume_due without a node, and the orphan pass below (here or on another node) resumes it
        wakeDue(() -> dueWaits.wake(scope.env()));
        SweepReport report = recovery.sweep(scope);
        swept.fire(new io.cyclium.runtime.RecoverySwept(scope.stack(), scope.anyStack(), scope.env()));
        return report;
    }
}
