package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.WaitAlarm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The node's due-wake timer on a real scheduled executor with two threads (so that two passes
 * COULD overlap if the timer let them) and the real alarm; the pass is the test's, counting.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class DueWakeTimerTest {

    final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    final WaitAlarm alarm = new WaitAlarm();
    final AtomicInteger passes = new AtomicInteger();
    final List<Long> passStartedNanos = java.util.Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void down() {
        executor.shutdownNow();
    }

    DueWakeTimer timer(BooleanSupplier pass) {
        return new DueWakeTimer(executor, alarm, () -> {
            passStartedNanos.add(System.nanoTime());
            passes.incrementAndGet();
            return pass.getAsBoolean();
        }).start();
    }

    static void await(BooleanSupplier until, Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!until.getAsBoolean() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
    }

    @Test
    void an_idle_node_schedules_nothing_and_runs_no_pass() throws Exception {
        DueWakeTimer t = timer(() -> true);
        assertThat(t.scheduledIn()).isEmpty();
        Thread.sleep(300);
        assertThat(passes.get()).isZero();
        t.stop();
    }

    @Test
    void one_task_is_scheduled_at_the_earliest_due_time_heard_and_the_pass_runs_then_not_on_a_tick() throws Exception {
        DueWakeTimer t = timer(() -> true);
        long t0 = System.nanoTime();
        alarm.wake(Duration.ofSeconds(5));
        assertThat(t.scheduledIn()).get().satisfies(in -> assertThat(in).isGreaterThan(Duration.ofMillis(4_900)));
        alarm.wake(Duration.ofMillis(300));
        alarm.wake(Duration.ofSeconds(3)); // later: the task at 300 ms stays
        assertThat(t.scheduledIn()).get().satisfies(in -> assertThat(in).isLessThanOrEqualTo(Duration.ofMillis(300)));

        await(() -> passes.get() > 0, Duration.ofSeconds(2));
        long lateMs = (passStartedNanos.get(0) - t0) / 1_000_000 - 300;
        assertThat(lateMs).as("ms late").isBetween(0L, 100L);
        Thread.sleep(300);
        assertThat(passes.get()).as("one pass: the replaced 5 s task never fired").isEqualTo(1);
        assertThat(t.scheduledIn()).as("the pass heard of nothing more: nothing scheduled").isEmpty();
        t.stop();
    }

    @Test
    void a_wake_heard_while_the_pass_runs_runs_one_more_pass_after_it_never_two_at_once() throws Exception {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlap = new AtomicInteger();
        DueWakeTimer t = timer(() -> {
            if (running.incrementAndGet() > 1) {
                overlap.incrementAndGet();
            }
            inPass.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
            return true;
        });
        alarm.wake(Duration.ZERO);
        assertThat(inPass.await(2, TimeUnit.SECONDS)).isTrue();
        alarm.wake(Duration.ZERO); // a sleep committed while the pass runs, already due
        alarm.wake(Duration.ZERO);
        Thread.sleep(200);
        assertThat(passes.get()).as("no second pass while the first runs").isEqualTo(1);
        release.countDown();
        await(() -> passes.get() >= 2, Duration.ofSeconds(2));
        Thread.sleep(200);
        assertThat(passes.get()).as("the time heard meanwhile: one more pass").isEqualTo(2);
        assertThat(overlap.get()).isZero();
        t.stop();
    }

    @Test
    void wakes_from_many_threads_at_once_leave_the_task_at_the_earliest_time() throws Exception {
        DueWakeTimer t = timer(() -> true);
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            long ms = 10_000 + 1_000L * i;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long k = 0; k < 200; k++) {
                    alarm.wake(Duration.ofMillis(ms - k * 20));
                }
            });
            th.start();
            all.add(th);
        }
        go.countDown();
        for (Thread th : all) {
            th.join();
        }
        // the earliest heard: 10 000 - 199 * 20 = 6 020 ms
        assertThat(alarm.dueIn()).get().satisfies(in -> assertThat(in).isLessThanOrEqualTo(Duration.ofMillis(6_020)));
        Duration alarmIn = alarm.dueIn().orElseThrow();
        assertThat(t.scheduledIn()).get().satisfies(in -> assertThat(in.minus(alarmIn).abs()).isLessThan(Duration.ofMillis(50)));
        t.stop();
    }

    @Test
    void a_failing_pass_is_tried_again_after_the_backoff_never_in_a_hot_loop() throws Exception {
        // the pass read "something is due now" before it failed (the database went away mid-pass)
        DueWakeTimer t = timer(() -> {
            alarm.wake(Duration.ZERO);
            return false;
        });
        alarm.wake(Duration.ZERO);
        Thread.sleep(2_500);
        assertThat(passes.get()).as("one at once, then one per %s", DueWakeTimer.AFTER_FAILURE).isBetween(2, 4);
        assertThat(passStartedNanos.get(1) - passStartedNanos.get(0)).isGreaterThanOrEqualTo(
                DueWakeTimer.AFTER_FAILURE.toNanos());
        t.stop();
    }

    @Test
    void a_failed_pass_that_left_the_alarm_off_still_rings_again_after_the_backoff() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        DueWakeTimer t = timer(() -> calls.incrementAndGet() > 1);
        alarm.wake(Duration.ZERO);
        await(() -> passes.get() >= 2, Duration.ofSeconds(3));
        assertThat(passes.get()).as("the failed pass is tried again, not forgotten until the sweep").isEqualTo(2);
        Thread.sleep(300);
        assertThat(passes.get()).as("the retry succeeded: nothing more").isEqualTo(2);
        t.stop();
    }

    @Test
    void after_stop_no_pass_starts_and_a_pass_in_flight_is_waited_for() throws Exception {
        CountDownLatch inPass = new CountDownLatch(1);
        AtomicInteger ended = new AtomicInteger();
        DueWakeTimer t = timer(() -> {
            inPass.countDown();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ended.incrementAndGet();
            return true;
        });
        alarm.wake(Duration.ZERO);
        assertThat(inPass.await(2, TimeUnit.SECONDS)).isTrue();
        alarm.wake(Duration.ofMillis(100)); // would run a second pass
        t.stop();
        assertThat(ended.get()).as("stop returned after the pass in flight ended").isEqualTo(1);
        alarm.wake(Duration.ZERO);
        Thread.sleep(400);
        assertThat(passes.get()).as("nothing after stop").isEqualTo(1);
        assertThat(t.scheduledIn()).isEmpty();
    }
}
