package io.cyclium.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The workflow timer's alarm, on a clock the test advances (the timer asks it once a second). */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class RetryAlarmTest {

    // System.nanoTime may be negative: start there
    final AtomicLong nanos = new AtomicLong(-5_000_000_000L);
    final RetryAlarm alarm = new RetryAlarm(nanos::get);

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    /** Seconds of ticks: how many read the pulse, and how many ran retries. */
    int[] tick(int seconds) {
        int[] counts = new int[2];
        for (int i = 0; i < seconds; i++) {
            if (alarm.pulseDue()) {
                counts[0]++;
                alarm.heard(null);
            }
            if (alarm.ringing()) {
                counts[1]++;
                alarm.ran(false);
            }
            advance(Duration.ofSeconds(1));
        }
        return counts;
    }

    @Test
    void a_node_with_nothing_due_reads_the_pulse_once_per_idle_check_and_runs_no_retries() {
        int[] counts = tick(60);
        assertThat(counts[0]).as("pulses in 60 s").isEqualTo((int) (60 / RetryAlarm.IDLE_CHECK.toSeconds()));
        assertThat(counts[1]).isZero();
    }

    @Test
    void a_heartbeat_shorter_than_the_idle_check_makes_the_pulse_that_often_and_a_longer_one_changes_nothing() {
        // the pulse carries the pauses: the timer asks for it one tick short of the heartbeat interval
        alarm.checkEvery(Duration.ofSeconds(2).minusSeconds(1));
        assertThat(tick(60)[0]).as("lease 6 s: heartbeat 2 s, a pulse every tick").isEqualTo(60);
        alarm.checkEvery(Duration.ofSeconds(40).minusSeconds(1));
        tick(10);
        assertThat(tick(60)[0]).as("lease 120 s (the default): every idle check, as before").isEqualTo(6);
    }

    @Test
    void a_retry_stored_here_rings_when_it_is_due_without_waiting_for_a_pulse() {
        alarm.heard(null);
        alarm.wake(Duration.ofMillis(2_500));
        advance(Duration.ofSeconds(2));
        assertThat(alarm.ringing()).isFalse();
        assertThat(alarm.pulseDue()).isFalse();
        advance(Duration.ofMillis(500));
        assertThat(alarm.ringing()).isTrue();
    }

    @Test
    void a_retry_stored_by_another_node_rings_once_a_pulse_has_read_its_due_time() {
        alarm.heard(null);
        advance(RetryAlarm.IDLE_CHECK);
        assertThat(alarm.pulseDue()).isTrue();
        alarm.heard(Duration.ofSeconds(3));
        advance(Duration.ofSeconds(2));
        assertThat(alarm.ringing()).isFalse();
        advance(Duration.ofSeconds(1));
        assertThat(alarm.ringing()).isTrue();
    }

    @Test
    void a_retry_already_due_when_the_pulse_reads_it_rings_at_once() {
        alarm.heard(Duration.ofSeconds(-30));
        assertThat(alarm.ringing()).isTrue();
    }

    @Test
    void after_retries_ran_the_next_tick_reads_the_pulse_unless_a_full_batch_left_more_due() {
        alarm.heard(Duration.ZERO);
        alarm.ran(true);
        assertThat(alarm.ringing()).as("a full batch: more may be due").isTrue();
        assertThat(alarm.pulseDue()).isFalse();

        alarm.ran(false);
        assertThat(alarm.ringing()).isFalse();
        assertThat(alarm.pulseDue()).as("the pulse says when the next one is due").isTrue();
    }
}
