package io.cyclium.timing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScheduleBucketsTest {

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @Test
    void one_minute_schedule_gets_one_minute_buckets() {
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofMinutes(1));
        assertThat(buckets.bucket(at("2026-06-05T05:07:00Z"))).isEqualTo("2026-06-05T05:07:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:07:59.999Z"))).isEqualTo("2026-06-05T05:07:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:08:00Z"))).isEqualTo("2026-06-05T05:08:00Z");
    }

    @Test
    void fifteen_minute_schedule_gets_quarter_hour_buckets() {
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofMinutes(15));
        assertThat(buckets.bucket(at("2026-06-05T05:00:00Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:14:59Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:15:00Z"))).isEqualTo("2026-06-05T05:15:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:44:10Z"))).isEqualTo("2026-06-05T05:30:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:59:59Z"))).isEqualTo("2026-06-05T05:45:00Z");
    }

    @Test
    void hourly_schedule_gets_hourly_buckets() {
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofHours(1));
        assertThat(buckets.bucket(at("2026-06-05T05:00:00Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T05:59:59.999Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T06:00:00Z"))).isEqualTo("2026-06-05T06:00:00Z");
    }

    @Test
    void hourly_schedule_fires_in_consecutive_hours_get_different_buckets() {
        // the original library's 4-hour window would have merged these and throttled the schedule
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofHours(1));
        assertThat(buckets.bucket(at("2026-06-05T05:30:00Z")))
                .isNotEqualTo(buckets.bucket(at("2026-06-05T06:30:00Z")))
                .isNotEqualTo(buckets.bucket(at("2026-06-05T07:30:00Z")));
    }

    @Test
    void daily_schedule_gets_buckets_starting_at_utc_midnight() {
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofDays(1));
        assertThat(buckets.bucket(at("2026-06-05T00:00:00Z"))).isEqualTo("2026-06-05T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T23:59:59Z"))).isEqualTo("2026-06-05T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-06T00:00:01Z"))).isEqualTo("2026-06-06T00:00:00Z");
    }

    @Test
    void three_day_schedule_gets_three_day_buckets_counted_from_the_epoch() {
        // epoch day 20607 (2026-06-03) is a multiple of 3
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofDays(3));
        assertThat(buckets.bucket(at("2026-06-03T00:00:00Z"))).isEqualTo("2026-06-03T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-04T12:00:00Z"))).isEqualTo("2026-06-03T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-05T23:59:59Z"))).isEqualTo("2026-06-03T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-06T00:00:00Z"))).isEqualTo("2026-06-06T00:00:00Z");
        assertThat(buckets.bucket(at("2026-06-07T08:00:00Z"))).isEqualTo("2026-06-06T00:00:00Z");
    }

    @Test
    void two_nodes_firing_moments_apart_in_the_same_interval_share_a_bucket() {
        ScheduleBuckets nodeA = ScheduleBuckets.every(Duration.ofMinutes(15));
        ScheduleBuckets nodeB = ScheduleBuckets.every(Duration.ofMinutes(15));
        assertThat(nodeA.bucket(at("2026-06-05T05:15:00.120Z")))
                .isEqualTo(nodeB.bucket(at("2026-06-05T05:15:03.900Z")));
    }

    @ParameterizedTest(name = "every {0} at {1} -> {2}")
    @CsvSource({
        "PT1S,  2026-06-05T05:07:09.999Z, 2026-06-05T05:07:09Z",
        "PT90S, 2026-06-05T05:07:09Z,     2026-06-05T05:06:00Z",
        "PT7M,  2026-06-05T05:07:09Z,     2026-06-05T05:03:00Z",
        "PT1.5S, 1970-01-01T00:00:02Z,    1970-01-01T00:00:01.500Z",
    })
    void odd_intervals_align_to_whole_multiples_since_the_epoch(String interval, String at, String bucket) {
        assertThat(ScheduleBuckets.intervalBucket(Duration.parse(interval), at(at))).isEqualTo(bucket);
    }

    @Test
    void bucket_start_is_never_after_the_time_and_less_than_one_interval_before_it() {
        Duration interval = Duration.ofMinutes(7);
        ScheduleBuckets buckets = ScheduleBuckets.every(interval);
        Instant t = at("2026-06-05T00:00:00Z");
        for (int i = 0; i < 500; i++, t = t.plusSeconds(37)) {
            Instant start = buckets.bucketStart(t);
            assertThat(start).isBeforeOrEqualTo(t).isAfter(t.minus(interval));
            assertThat(start.toEpochMilli() % interval.toMillis()).isZero();
        }
    }

    @Test
    void times_before_the_epoch_round_down_not_toward_zero() {
        ScheduleBuckets buckets = ScheduleBuckets.every(Duration.ofHours(1));
        assertThat(buckets.bucket(at("1969-12-31T23:30:00Z"))).isEqualTo("1969-12-31T23:00:00Z");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"PT0.999S", "PT0S", "PT-1S", "PT-1H"})
    void intervals_shorter_than_one_second_are_rejected(String interval) {
        assertThatThrownBy(() -> ScheduleBuckets.every(Duration.parse(interval)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("schedule interval must be at least 1 second, got ")
                .hasMessageContaining(interval);
    }

    @Test
    void intervals_with_a_fraction_of_a_millisecond_are_rejected() {
        assertThatThrownBy(() -> ScheduleBuckets.every(Duration.ofSeconds(1).plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole number of milliseconds");
    }

    @Test
    void exactly_one_second_is_accepted() {
        assertThat(ScheduleBuckets.every(Duration.ofSeconds(1)).interval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void cron_bucket_is_the_tick_truncated_to_the_minute() {
        assertThat(ScheduleBuckets.cronBucket(at("2026-06-05T05:00:00Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(ScheduleBuckets.cronBucket(at("2026-06-05T05:00:59.999Z"))).isEqualTo("2026-06-05T05:00:00Z");
        assertThat(ScheduleBuckets.cronBucket(at("2026-06-05T05:01:00Z"))).isEqualTo("2026-06-05T05:01:00Z");
    }

    @Test
    void cron_bucket_of_a_cron_tick_matches_the_tick_itself() {
        Instant tick = CronSchedule.parse("0 5 * * *").nextAfter(at("2026-06-04T12:00:00Z"));
        assertThat(ScheduleBuckets.cronBucket(tick)).isEqualTo("2026-06-05T05:00:00Z");
    }

    @Test
    void to_string_names_the_interval() {
        assertThat(ScheduleBuckets.every(Duration.ofMinutes(15))).hasToString("ScheduleBuckets[every PT15M]");
    }
}
