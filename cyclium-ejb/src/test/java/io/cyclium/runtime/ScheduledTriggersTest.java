package io.cyclium.runtime;

import io.cyclium.timing.Jitter;

import io.cyclium.actor.Overflow;
import io.cyclium.actor.TestActors;

import static io.cyclium.actor.TestActors.actor;
import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.ManualScheduler;
import io.cyclium.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ScheduledTriggersTest {

    private static final Instant ARMED_AT = Instant.parse("2026-03-02T10:07:30Z");

    private final MutableClock clock = new MutableClock(ARMED_AT);
    private final ManualScheduler timers = new ManualScheduler(clock);
    private final RecordingLauncher launcher = new RecordingLauncher();

    /** Arms the expectations of actor "reports" on a node in {@code env}, with slots to spare. */
    private ScheduledTriggers armed(String env, TestActors.ExpectationBuilder... expectations) {
        ActorRuntime runtime = new ActorRuntime(actor("reports", Overflow.QUEUE, expectations), 100, launcher,
                new ActorRuntime.Context(timers, clock, Telemetry.NOOP, "node-1", null, env, new Jitter(Duration.ZERO),
                        () -> io.cyclium.config.NodeMode.FULL));
        ScheduledTriggers triggers = new ScheduledTriggers(timers, clock, Telemetry.NOOP, env);
        triggers.arm(runtime);
        return triggers;
    }

    private static String key(String bucket) {
        return "schedule:reports:digest:" + bucket;
    }

    // ---- interval ------------------------------------------------------------------------------

    @Test
    void an_interval_fires_once_for_the_current_bucket_when_armed() {
        armed(null, expectation("digest").every(Duration.ofMinutes(15)));

        timers.runDue();

        assertThat(launcher.inserted).singleElement().satisfies(row -> {
            assertThat(row.dedupeKey()).isEqualTo(key("2026-03-02T10:00:00Z"));
            assertThat(row.trigger().type()).isEqualTo(TriggerInfo.SCHEDULE);
            assertThat(row.trigger().scheduledFor()).isEqualTo(Instant.parse("2026-03-02T10:00:00Z"));
        });
    }

    @Test
    void an_interval_then_fires_once_at_each_bucket_boundary() {
        armed(null, expectation("digest").every(Duration.ofMinutes(15)));
        timers.runDue();

        timers.advanceTo(Instant.parse("2026-03-02T10:14:59.999Z"));
        assertThat(launcher.inserted).hasSize(1);
        timers.advance(Duration.ofMillis(1));
        assertThat(launcher.inserted).hasSize(2);
        timers.advance(Duration.ofMinutes(15));

        assertThat(launcher.insertedKeys()).containsExactly(
                key("2026-03-02T10:00:00Z"), key("2026-03-02T10:15:00Z"), key("2026-03-02T10:30:00Z"));
        assertThat(launcher.inserted).extracting(row -> row.trigger().scheduledFor()).containsExactly(
                Instant.parse("2026-03-02T10:00:00Z"), Instant.parse("2026-03-02T10:15:00Z"),
                Instant.parse("2026-03-02T10:30:00Z"));
    }

    @Test
    void an_interval_armed_exactly_on_a_boundary_fires_that_bucket_once() {
        clock.set(Instant.parse("2026-03-02T10:15:00Z"));
        armed(null, expectation("digest").every(Duration.ofMinutes(15)));

        timers.advance(Duration.ofMinutes(15).minusMillis(1));

        assertThat(launcher.insertedKeys()).containsExactly(key("2026-03-02T10:15:00Z"));
    }

    @Test
    void in_env_rc_the_schedule_key_ends_with_the_env() {
        armed("rc", expectation("digest").every(Duration.ofMinutes(15)));

        timers.runDue();

        assertThat(launcher.insertedKeys()).containsExactly(key("2026-03-02T10:00:00Z") + ":rc");
    }

    @Test
    void after_a_pause_an_interval_fires_the_current_bucket_without_replaying_the_missed_ones() {
        armed(null, expectation("digest").every(Duration.ofMinutes(15)));
        timers.runDue();

        clock.advance(Duration.ofHours(1)); // suspended: no timer ran from 10:07:30 to 11:07:30
        timers.runDue();
        timers.advanceTo(Instant.parse("2026-03-02T11:15:00Z"));

        assertThat(launcher.insertedKeys()).containsExactly(
                key("2026-03-02T10:00:00Z"), key("2026-03-02T11:00:00Z"), key("2026-03-02T11:15:00Z"));
    }

    // ---- cron ----------------------------------------------------------------------------------

    @Test
    void a_cron_fires_at_its_next_tick_with_the_tick_as_key() {
        armed(null, expectation("digest").cron("*/20 * * * *"));
        timers.runDue();
        assertThat(launcher.inserted).as("a cron does not fire when armed").isEmpty();

        timers.advanceTo(Instant.parse("2026-03-02T10:19:59.999Z"));
        assertThat(launcher.inserted).isEmpty();
        timers.advance(Duration.ofMillis(1));

        assertThat(launcher.inserted).singleElement().satisfies(row -> {
            assertThat(row.dedupeKey()).isEqualTo(key("2026-03-02T10:20:00Z"));
            assertThat(row.trigger().type()).isEqualTo(TriggerInfo.CRON);
            assertThat(row.trigger().scheduledFor()).isEqualTo(Instant.parse("2026-03-02T10:20:00Z"));
        });
    }

    @Test
    void a_cron_keeps_firing_at_each_following_tick() {
        armed("rc", expectation("digest").cron("*/20 * * * *"));

        timers.advanceTo(Instant.parse("2026-03-02T11:00:00Z"));

        assertThat(launcher.insertedKeys()).containsExactly(key("2026-03-02T10:20:00Z") + ":rc",
                key("2026-03-02T10:40:00Z") + ":rc", key("2026-03-02T11:00:00Z") + ":rc");
    }

    @Test
    void after_a_pause_a_cron_does_not_replay_every_missed_tick() {
        armed(null, expectation("digest").cron("*/20 * * * *"));

        clock.set(Instant.parse("2026-03-02T11:07:30Z")); // suspended: the 10:20 timer runs an hour late
        timers.runDue();
        timers.advanceTo(Instant.parse("2026-03-02T11:20:00Z"));

        assertThat(launcher.insertedKeys()).containsExactly(key("2026-03-02T10:20:00Z"), key("2026-03-02T11:20:00Z"));
    }

    // ---- stop ----------------------------------------------------------------------------------

    @Test
    void stop_cancels_every_armed_timer() {
        ScheduledTriggers triggers = armed(null,
                expectation("digest").every(Duration.ofMinutes(15)), expectation("nightly").cron("@daily"));
        timers.runDue();
        assertThat(timers.pendingCount()).isEqualTo(2);

        triggers.stop();

        assertThat(timers.pendingCount()).isZero();
        timers.advance(Duration.ofDays(2));
        assertThat(launcher.inserted).extracting(NewEpisode::expectationId).containsExactly("digest");
    }
}
