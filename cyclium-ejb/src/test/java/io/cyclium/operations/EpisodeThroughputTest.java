package io.cyclium.operations;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.operations.EpisodeThroughput.Minute;
import io.cyclium.operations.EpisodeThroughput.Window;
import io.cyclium.problem.Problem;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The dashboard's per-minute series on every database. Tests that count rows put them in a window
 * of their own (a random day in the past), so they share each vendor's database safely.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EpisodeThroughputTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static LocalDateTime aDayOfItsOwn() {
        return LocalDateTime.of(2000, 1, 1, 0, 0).plusDays(ThreadLocalRandom.current().nextInt(5_000)).plusHours(12);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void starts_count_in_the_minute_they_started_failures_in_the_minute_they_finished_and_empty_minutes_are_zero(
            Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        LocalDateTime from = aDayOfItsOwn();
        EpisodeRows rows = new EpisodeRows(db);
        rows.insert(from.plusSeconds(1));
        rows.insert(from.plusSeconds(59).plusNanos(999_000));
        rows.insert(from.plusMinutes(2).plusSeconds(30));
        // started in minute 2, failed in minute 4; partially_failed counts as a failure too
        rows.status("failed").finishedAt(from.plusMinutes(4).plusSeconds(5)).insert(from.plusMinutes(2).plusSeconds(10));
        rows.status("partially_failed").finishedAt(from.plusMinutes(4).plusSeconds(50)).insert(from.plusMinutes(3));
        // outside the window on either side
        rows.status("done").finishedAt(null).insert(from.minusNanos(1_000));
        rows.insert(from.plusMinutes(5));
        rows.status("failed").finishedAt(from.plusMinutes(5)).insert(from.minusMinutes(10));

        Window w = db.inNewTransaction(em -> new EpisodeThroughput(db.vendor()).window(em, from, from.plusMinutes(5)));

        assertThat(w.minutes()).containsExactly(
                new Minute(from, 2, 0),
                new Minute(from.plusMinutes(1), 0, 0),
                new Minute(from.plusMinutes(2), 2, 0),
                new Minute(from.plusMinutes(3), 1, 0),
                new Minute(from.plusMinutes(4), 0, 2));
        assertThat(w.started()).isEqualTo(5);
        assertThat(w.failed()).isEqualTo(2);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_last_minutes_end_with_the_current_minute_of_the_database_clock_and_are_capped_at_a_day(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        EpisodeThroughput throughput = new EpisodeThroughput(db.vendor());
        LocalDateTime before = LocalDateTime.now(java.time.ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);

        Window hour = db.inNewTransaction(em -> throughput.lastMinutes(em, 60));
        Window capped = db.inNewTransaction(em -> throughput.lastMinutes(em, 100_000));

        assertThat(hour.minutes()).hasSize(60);
        assertThat(hour.to()).isEqualTo(hour.from().plusMinutes(60));
        // the database runs on this machine: its clock and ours agree to well within a minute
        assertThat(hour.minutes().get(59).minute()).isBetween(before.minusMinutes(1), before.plusMinutes(1));
        assertThat(capped.minutes()).hasSize(EpisodeThroughput.MAX_MINUTES).hasSize(1440);
        assertThatThrownBy(() -> db.inNewTransaction(em -> throughput.lastMinutes(em, 0)))
                .isInstanceOfSatisfying(Problem.class, p -> {
                    assertThat(p.status()).isEqualTo(400);
                    assertThat(p.field()).isEqualTo("minutes");
                });
    }
}
