package io.cyclium.retention;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ejb.ScheduleExpression;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The catch-up tick is a calendar on the wall clock, the same instants on every node. */
class RetentionSchedulerTest {

    @Test
    void a_tick_under_a_minute_fires_on_every_nth_second_of_every_minute() {
        ScheduleExpression e = RetentionScheduler.catchUpSchedule(Duration.ofSeconds(5));
        assertThat(e.getSecond()).isEqualTo("*/5");
        assertThat(e.getMinute()).isEqualTo("*");
        assertThat(e.getHour()).isEqualTo("*");
        assertThat(e.getTimezone()).isEqualTo("UTC");
    }

    @Test
    void a_tick_of_minutes_fires_at_second_zero_of_every_nth_minute() {
        ScheduleExpression e = RetentionScheduler.catchUpSchedule(Duration.ofMinutes(5));
        assertThat(e.getSecond()).isEqualTo("0");
        assertThat(e.getMinute()).isEqualTo("*/5");
        assertThat(e.getHour()).isEqualTo("*");
    }
}
