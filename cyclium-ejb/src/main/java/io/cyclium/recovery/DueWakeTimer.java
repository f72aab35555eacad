package io.cyclium.recovery;

import io.cyclium.episode.WaitAlarm;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Runs the due pass of durable sleeps and wait timeouts at the instant the node's {@link WaitAlarm}
 * is due, on a scheduled executor of its own: not on a polling tick, and not under the recovery
 * sweep's lock, so a slow sweep (a database outage, a big backlog) holds back no wake and a wake
 * never holds back the sweep. At most ONE task is scheduled at a time, at the alarm's due time; an
 * idle node (alarm off) has none, and sends no statement for it.
 *
 * <p>Races, all decided under this object's lock; the alarm stays the one truth of "when":
 * <ul>
 * <li><b>wake() while the pass runs</b> — the alarm keeps the time ({@link WaitAlarm#ringing}
 * turned it off before the pass, so any time heard since arms it again); {@link #rearm} does
 * nothing while a pass runs, and the pass, as it ends, re-arms from the alarm under the same lock.
 * So two passes never overlap here, and no time heard is lost.</li>
 * <li><b>two wake() at once</b> — each calls {@link #rearm} after its own update of the alarm;
 * whichever comes second under this lock reads the alarm's earliest time, and the task already
 * scheduled is kept when it is not later than that, else cancelled and replaced. A cancelled task
 * that was already starting finds {@code next} no longer itself and returns.</li>
 * <li><b>shutdown / drain</b> — {@link #stop} (from the owner's {@code @PreDestroy}) sets
 * {@code stopped}, cancels the task and waits, bounded, for a pass in flight; nothing is scheduled
 * and no pass starts after that. (A draining node's pass does nothing anyway: DueWaits leaves due
 * rows to a node that sweeps.)</li>
 * <li><b>the pass failing</b> — the owner's pass runs inside BackgroundPass (logged, counted) and
 * answers false; the alarm may then be off, or armed for "now" by a read that succeeded before the
 * failure. Either way the next pass starts no sooner than {@link #AFTER_FAILURE} after it: one try a
 * second through an outage, never a hot loop. The recovery sweep's own pass stays the backstop.</li>
 * </ul>
 */
public final class DueWakeTimer {

    private static final Logger LOG = Logger.getLogger(DueWakeTimer.class.getName());

    /** How long after a failed pass the next one may start at the earliest. */
    public static final Duration AFTER_FAILURE = Duration.ofSeconds(1);

    /** How long {@link #stop} waits for a pass in flight. */
    static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final ScheduledExecutorService executor;
    private final WaitAlarm alarm;
    private final BooleanSupplier pass;
    private final LongSupplier nanos;
    private final Runnable listener = this::rearm;

    // all guarded by this
    private ScheduledFuture<?> next;
    private long nextAt;
    private boolean running;
    private boolean stopped;
    /** No pass before this nanoTime (after a failure); meaningful while {@code backingOff}. */
    private long notBefore;
    private boolean backingOff;

    /**
     * @param pass the due pass; true when it ran, false when it failed (already logged and counted)
     */
    public DueWakeTimer(ScheduledExecutorService executor, WaitAlarm alarm, BooleanSupplier pass) {
        this(executor, alarm, pass, System::nanoTime);
    }

    DueWakeTimer(ScheduledExecutorService executor, WaitAlarm alarm, BooleanSupplier pass, LongSupplier nanos) {
        this.executor = executor;
        this.alarm = alarm;
        this.pass = pass;
        this.nanos = nanos;
    }

    /** Listens to the alarm from now on, and arms for a time it already holds. */
    public DueWakeTimer start() {
        alarm.onEarlier(listener);
        rearm();
        return this;
    }

    /**
     * Schedules the one task at the alarm's due time, unless one is scheduled no later or a pass
     * runs (it re-arms as it ends). Called by the alarm when it is set earlier, and by the pass.
     */
    void rearm() {
        synchronized (this) {
            if (stopped || running) {
                return;
            }
            var dueIn = alarm.dueIn();
            if (dueIn.isEmpty()) {
                return; // nothing due: an earlier task, if any, fires, finds the alarm off and stops
            }
            long now = nanos.getAsLong();
            long at = now + dueIn.get().toNanos();
            if (backingOff && at - notBefore < 0) {
                at = notBefore;
            }
            if (next != null && !next.isDone() && nextAt - at <= 0) {
                return;
            }
            if (next != null) {
                next.cancel(false);
            }
            nextAt = at;
            try {
                ScheduledFuture<?>[] mine = new ScheduledFuture<?>[1];
                mine[0] = executor.schedule(() -> fire(mine), Math.max(0, at - now), TimeUnit.NANOSECONDS);
                next = mine[0];
            } catch (RejectedExecutionException e) {
                // the executor is going down with the application: the sweep of a live node takes over
                next = null;
                LOG.fine(() -> "The executor refused the due-wake task; the recovery sweep wakes what is due");
            }
        }
    }

    private void fire(ScheduledFuture<?>[] self) {
        synchronized (this) {
            // rearm stores the future before it lets go of this lock, so self[0] is set here
            if (stopped || running || next != self[0]) {
                return; // cancelled and replaced by an earlier one, or the node stops
            }
            next = null;
            running = true;
        }
        boolean ok = true;
        try {
            if (alarm.ringing()) {
                ok = pass.getAsBoolean();
            }
        } finally {
            synchronized (this) {
                running = false;
                backingOff = !ok;
                if (!ok) {
                    notBefore = nanos.getAsLong() + AFTER_FAILURE.toNanos();
                }
                notifyAll();
            }
            if (!ok) {
                // the alarm may be off after the failure: ring again then (not sooner: notBefore)
                alarm.wake(AFTER_FAILURE);
            }
            rearm();
        }
    }

    /** When the scheduled task fires from now (empty: none). For tests and the log. */
    synchronized java.util.Optional<Duration> scheduledIn() {
        return next == null || next.isDone() ? java.util.Optional.empty()
                : java.util.Optional.of(Duration.ofNanos(Math.max(0, nextAt - nanos.getAsLong())));
    }

    /**
     * No pass starts from now on: the task is cancelled, the alarm no longer calls here, and a
     * pass in flight is waited for (at most {@link #STOP_WAIT}).
     */
    public void stop() {
        alarm.onEarlier(null);
        synchronized (this) {
            stopped = true;
            if (next != null) {
                next.cancel(false);
                next = null;
            }
            long end = System.nanoTime() + STOP_WAIT.toNanos();
            try {
                while (running && end - System.nanoTime() > 0) {
                    wait(Math.max(1, (end - System.nanoTime()) / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
