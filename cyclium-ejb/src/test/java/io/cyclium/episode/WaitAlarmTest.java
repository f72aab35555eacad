package io.cyclium.episode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** The node's alarm for due sleeps and wait timeouts, on a clock the test advances. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WaitAlarmTest {

    // System.nanoTime may be negative: start there
    final AtomicLong nanos = new AtomicLong(-5_000_000_000L);
    final WaitAlarm alarm = new WaitAlarm(nanos::get);

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void an_alarm_nobody_set_never_rings() {
        advance(Duration.ofHours(1));
        assertThat(alarm.ringing()).isFalse();
        alarm.wake(null);
        assertThat(alarm.ringing()).isFalse();
    }

    @Test
    void it_rings_once_at_the_earliest_due_time_it_heard() {
        alarm.wake(Duration.ofSeconds(5));
        alarm.wake(Duration.ofSeconds(2));
        alarm.wake(Duration.ofSeconds(9));
        advance(Duration.ofMillis(1_999));
        assertThat(alarm.ringing()).isFalse();
        advance(Duration.ofMillis(1));
        assertThat(alarm.ringing()).isTrue();
        assertThat(alarm.ringing()).as("off once it rang: the pass says when the next is due").isFalse();
    }

    @Test
    void a_due_time_heard_while_the_pass_runs_arms_it_again_and_a_past_one_rings_at_once() {
        alarm.wake(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1));
        assertThat(alarm.ringing()).isTrue();
        alarm.wake(Duration.ofSeconds(3)); // a sleep committed while the pass ran
        advance(Duration.ofSeconds(3));
        assertThat(alarm.ringing()).isTrue();
        alarm.wake(Duration.ofSeconds(-4)); // the pulse read one already overdue
        assertThat(alarm.ringing()).isTrue();
    }

    @Test
    void its_listener_hears_each_earlier_time_and_a_time_set_after_it_rang_but_not_a_later_one() {
        java.util.List<Duration> heard = new java.util.ArrayList<>();
        alarm.onEarlier(() -> heard.add(alarm.dueIn().orElseThrow()));
        alarm.wake(Duration.ofSeconds(5));
        alarm.wake(Duration.ofSeconds(9)); // later: nothing to reschedule
        alarm.wake(Duration.ofSeconds(2));
        alarm.wake(null);
        assertThat(heard).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(2));
        advance(Duration.ofSeconds(2));
        assertThat(alarm.ringing()).isTrue();
        alarm.wake(Duration.ofSeconds(7)); // off after ringing: any time is earlier than none
        assertThat(heard).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(2), Duration.ofSeconds(7));
        alarm.onEarlier(null);
        alarm.wake(Duration.ZERO);
        assertThat(heard).as("nobody listens any more").hasSize(3);
    }
}
