package io.cyclium.workflow;

import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.retry.EpisodeRetryService;
import io.cyclium.retry.RetryAlarm;
import io.cyclium.runtime.ActorHost;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * Stores the code definitions once the schema is there, then every second starts the instance of
 * the current bucket of each scheduled workflow (once across the cluster) and, on a full node that
 * is not draining, the retries that are due: of workflow steps, and of failed plain episodes
 * ({@link EpisodeRetryService}). The due time is a column, so a retry survives any restart; the
 * claim is a conditional UPDATE, so of all the nodes' timers one starts it.
 *
 * <p>A tick costs the database nothing unless something is due: the {@link RetryAlarm} rings when
 * a retry this node stored is due, or when the pulse — one statement every
 * {@link RetryAlarm#IDLE_CHECK} — found one due anywhere in the cluster; the pulse also tells the
 * definitions' cache whether another node changed one.
 */
@Singleton
@Startup
@DependsOn("ActorBootstrap")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class WorkflowTimer {

    private static final Logger LOG = Logger.getLogger(WorkflowTimer.class.getName());

    static final long INTERVAL_MS = 1_000;

    @Inject
    Workflows workflows;

    @Inject
    EpisodeRetryService episodeRetries;

    @Inject
    NodeModes modes;

    @Inject
    ActorHost host;

    @Inject
    NodeIdentity identity;

    @Inject
    Telemetry telemetry;

    @Inject
    RetryAlarm alarm;

    @Inject
    io.cyclium.config.CycliumConfig config;

    @Resource
    TimerService timers;

    @PostConstruct
    void start() {
        // the pulse carries the pauses: read one tick short of the heartbeat interval, so that with
        // the tick's granularity every node still sees a change within one heartbeat interval
        alarm.checkEvery(config.heartbeatInterval().minusMillis(INTERVAL_MS));
        workflows.registerCodeDefinitions();
        timers.createIntervalTimer(INTERVAL_MS, INTERVAL_MS, new TimerConfig("cyclium-workflow-retries", false));
    }

    @Timeout
    void onTimer() {
        if (modes.nodeMode() == NodeMode.DISABLED || host.draining()) {
            return;
        }
        // a trigger-only node creates scheduled instances too (full nodes run their steps)
        BackgroundPass.run("workflow_schedule", LOG, telemetry, () -> "Scheduled workflow starts on " + identity.name()
                + " failed; the next tick in " + INTERVAL_MS + " ms tries again", workflows::startScheduled);
        if (alarm.pulseDue()) {
            BackgroundPass.run("workflow_pulse", LOG, telemetry, () -> "The workflow pulse on " + identity.name()
                    + " failed; the next tick in " + INTERVAL_MS + " ms tries again", workflows::pulse);
        }
        if (modes.nodeMode() == NodeMode.FULL && alarm.ringing()) {
            int[] started = new int[2];
            BackgroundPass.run("workflow_retry", LOG, telemetry, () -> "Workflow retries on " + identity.name()
                    + " failed; the next tick in " + INTERVAL_MS + " ms tries again", () -> started[0] = workflows.runDueRetries());
            BackgroundPass.run("episode_retry", LOG, telemetry, () -> "Episode retries on " + identity.name()
                    + " failed; the next tick in " + INTERVAL_MS + " ms tries again", () -> started[1] = episodeRetries.runDue());
            // a full batch may leave more due: run again next tick; else the pulse says when the next is due
            alarm.ran(started[0] >= Workflows.BATCH || started[1] >= EpisodeRetryService.BATCH);
        }
    }
}
