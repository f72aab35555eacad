package io.cyclium.runtime;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.keys.DedupeKeys;

import io.cyclium.timing.CronSchedule;
import io.cyclium.timing.ScheduleBuckets;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Interval and cron triggers of one node. Every node arms the same timers; the dedupe key
 * (the interval's own bucket, or the cron tick to the minute) makes exactly one of them create the
 * episode. At boot an interval schedule fires for the current bucket too, so a bucket is covered
 * as long as some node was up during it; cron ticks that passed while every node was down are not
 * caught up.
 */
public final class ScheduledTriggers {

    private static final Logger LOG = Logger.getLogger(ScheduledTriggers.class.getName());

    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final Telemetry telemetry;
    private final String env;
    private final List<ScheduledFuture<?>> armed = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    public ScheduledTriggers(ScheduledExecutorService timers, Clock clock, Telemetry telemetry, String env) {
        this.timers = timers;
        this.clock = clock;
        this.telemetry = telemetry;
        this.env = env;
    }

    public void arm(ActorRuntime runtime) {
        for (ExpectationDefinition exp : runtime.definition().expectations()) {
            exp.every().ifPresent(buckets -> {
                Instant now = clock.instant();
                fireInterval(runtime, exp, buckets, now);
                armInterval(runtime, exp, buckets, buckets.bucketStart(now).plus(buckets.interval()));
            });
            exp.cron().ifPresent(cron -> armCron(runtime, exp, cron, clock.instant()));
        }
    }

    /** Arms the fire for the bucket starting at {@code next}; the chain advances by whole intervals. */
    private void armInterval(ActorRuntime runtime, ExpectationDefinition exp, ScheduleBuckets buckets, Instant next) {
        if (stopped) {
            return;
        }
        schedule(Duration.between(clock.instant(), next), () -> {
            // After a long pause (GC, suspended VM) fire the current bucket, not the stale "next" nor each
            // missed one: the current bucket must be covered by this node, which is up during it.
            Instant current = buckets.bucketStart(clock.instant());
            Instant at = current.isAfter(next) ? current : next;
            fireInterval(runtime, exp, buckets, at);
            armInterval(runtime, exp, buckets, at.plus(buckets.interval()));
        });
    }

    private void fireInterval(ActorRuntime runtime, ExpectationDefinition exp, ScheduleBuckets buckets, Instant at) {
        String bucket = buckets.bucket(at);
        String key = DedupeKeys.withEnv(DedupeKeys.schedule(runtime.definition().id(), exp.id(), bucket), env);
        runtime.fireWithJitter(exp, new TriggerInfo(TriggerInfo.SCHEDULE, null, null, JsonValue.EMPTY_JSON_OBJECT,
                buckets.bucketStart(at)), key, false);
    }

    private void armCron(ActorRuntime runtime, ExpectationDefinition exp, CronSchedule cron, Instant after) {
        if (stopped) {
            return;
        }
        Instant tick;
        try {
            tick = cron.nextAfter(after);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Cron " + cron.spec() + " of " + exp.qualifiedId() + " has no next tick; it stops here", e);
            return;
        }
        schedule(Duration.between(clock.instant(), tick), () -> {
            String key = DedupeKeys.withEnv(DedupeKeys.schedule(runtime.definition().id(), exp.id(),
                    ScheduleBuckets.cronBucket(tick)), env);
            runtime.fireWithJitter(exp, new TriggerInfo(TriggerInfo.CRON, null, null, JsonValue.EMPTY_JSON_OBJECT, tick),
                    key, false);
            // After a long pause (GC, suspended VM) go on from now: arming from the late tick would replay
            // every tick missed during the pause at once, one episode each.
            Instant now = clock.instant();
            armCron(runtime, exp, cron, now.isAfter(tick) ? now : tick);
        });
    }

    private void schedule(Duration delay, Runnable body) {
        long ms = Math.max(0, delay.toMillis());
        armed.removeIf(ScheduledFuture::isDone);
        armed.add(timers.schedule(() -> BackgroundPass.run("schedule", LOG, telemetry,
                () -> "A scheduled trigger failed; the next one is armed regardless", body), ms, TimeUnit.MILLISECONDS));
    }

    /** Cancels every armed timer (drain, undeploy). */
    public void stop() {
        stopped = true;
        armed.forEach(f -> f.cancel(false));
        armed.clear();
    }
}
