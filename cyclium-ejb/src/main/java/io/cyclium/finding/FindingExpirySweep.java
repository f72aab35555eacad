package io.cyclium.finding;

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
 * Clears expired findings every minute on every node. Running on all nodes at once is safe: each
 * batch locks its rows before changing them, and rows another node cleared first are skipped.
 * The timer is non-persistent: a node that is down has nothing to catch up, the others sweep.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
public class FindingExpirySweep {

    static final long INTERVAL_MS = 60_000;
    static final int BATCH = 100;
    /** Bounds one tick's work, so a backlog drains over several ticks instead of one long one. */
    static final int MAX_BATCHES_PER_TICK = 20;

    private static final Logger LOG = Logger.getLogger(FindingExpirySweep.class.getName());

    @Resource
    TimerService timers;

    @Inject
    Findings findings;

    @Inject
    Telemetry telemetry;

    @PostConstruct
    void schedule() {
        timers.createIntervalTimer(INTERVAL_MS, INTERVAL_MS, new TimerConfig(null, false));
        // the finding_active gauges exist (and read true) from boot, not from the first tick a minute later
        BackgroundPass.run("finding_expiry", LOG, telemetry, () -> "Counting active findings at boot failed; the first sweep"
                + " counts them again in " + INTERVAL_MS / 1000 + " s", () -> findings.recountActive(false));
    }

    /** Never throws: a failure is logged and counted, and the next tick tries again. */
    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void sweep() {
        int[] cleared = {0};
        BackgroundPass.run("finding_expiry", LOG, telemetry, () -> "Finding expiry sweep failed after clearing " + cleared[0]
                + " findings in this tick; the next sweep runs in " + INTERVAL_MS / 1000 + " s", () -> {
                    for (int batch = 0; batch < MAX_BATCHES_PER_TICK; batch++) {
                        int n = findings.expireDue(BATCH);
                        cleared[0] += n;
                        telemetry.count("finding_expired", n);
                        if (n < BATCH) {
                            break;
                        }
                    }
                    if (cleared[0] > 0) {
                        LOG.fine(() -> "Cleared " + cleared[0] + " expired findings");
                    }
                    findings.recountActive(false);
                });
    }
}
