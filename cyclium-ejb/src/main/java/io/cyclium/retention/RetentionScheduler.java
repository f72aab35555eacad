package io.cyclium.retention;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.RetentionSettings;
import io.cyclium.node.NodeIdentity;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.ScheduleExpression;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * Fires the retention job on every node at {@code cyclium.retention.daily-at} (UTC); the day's
 * work claim lets one of them run it. A catch-up tick (every {@code cyclium.retention.catch-up},
 * default PT5M, on the wall clock's minute or second) after that time resumes
 * the day's run if its node died (the claim lapsed) or starts it if no node was up at the time;
 * once the day's run has completed a tick is one indexed read.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RetentionScheduler {

    private static final Logger LOG = Logger.getLogger(RetentionScheduler.class.getName());

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    RetentionRunner runner;

    @Inject
    Telemetry telemetry;

    @Resource
    TimerService timers;

    @PostConstruct
    void start() {
        RetentionSettings s = config.retention();
        if (!s.enabled()) {
            LOG.info(() -> "Retention timer off (cyclium.retention.enabled=false); it still runs from the console and API");
            return;
        }
        timers.createCalendarTimer(new ScheduleExpression().timezone("UTC").hour(s.dailyAt().getHour())
                .minute(s.dailyAt().getMinute()), new TimerConfig("cyclium-retention-daily", false));
        timers.createCalendarTimer(catchUpSchedule(s.catchUp()), new TimerConfig("cyclium-retention-catch-up", false));
        LOG.info(() -> "Retention runs daily at " + s.dailyAt() + " UTC (archive after " + s.archiveAfter() + ", purge "
                + s.purgeAfter().map(Object::toString).orElse("off") + ", chunks of " + s.chunkSize() + ")");
    }

    /**
     * Every node ticks on the same wall-clock instants (second 0 of every n-th minute, or every
     * n-th second), so a tick is a race for the day's claim between all nodes that are up.
     */
    static ScheduleExpression catchUpSchedule(Duration every) {
        ScheduleExpression e = new ScheduleExpression().timezone("UTC").hour("*");
        return every.toSeconds() < 60 ? e.minute("*").second("*/" + every.toSeconds())
                : e.minute("*/" + every.toMinutes()).second("0");
    }

    @Timeout
    void onTimer(Timer timer) {
        BackgroundPass.run("retention_timer", LOG, telemetry, () -> "Retention timer on " + identity.name()
                + " failed to start the day's run; the next catch-up tick (within " + config.retention().catchUp()
                + ") tries again", () -> {
                    RetentionRunner.Start started = runner.runDue();
                    if (started instanceof RetentionRunner.Start.Started s) {
                        LOG.info(() -> "Retention run " + s.runKey() + " started by " + identity.name() + "'s timer");
                    }
                });
    }
}
