package io.cyclium.timing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class RetryPolicyTest {

    static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    final RetryPolicy policy = new RetryPolicy(5, Duration.ofSeconds(1), 3.0, Duration.ofSeconds(20), 0.0, Set.of("denied"));

    @Test
    void the_delay_grows_by_the_multiplier_and_stops_at_the_cap() {
        assertThat(policy.nextAttempt(1, "boom", NOW, () -> 0.5)).contains(NOW.plusSeconds(1));
        assertThat(policy.nextAttempt(2, "boom", NOW, () -> 0.5)).contains(NOW.plusSeconds(3));
        assertThat(policy.nextAttempt(3, "boom", NOW, () -> 0.5)).contains(NOW.plusSeconds(9));
        assertThat(policy.nextAttempt(4, "boom", NOW, () -> 0.5)).contains(NOW.plusSeconds(20));
    }

    @Test
    void no_attempt_is_left_after_the_last_one_nor_for_a_non_retryable_error_or_a_cancel() {
        assertThat(policy.nextAttempt(5, "boom", NOW, () -> 0.5)).isEmpty();
        assertThat(policy.nextAttempt(1, "denied", NOW, () -> 0.5)).isEmpty();
        assertThat(policy.nextAttempt(1, "canceled", NOW, () -> 0.5)).isEmpty();
        assertThat(RetryPolicy.NONE.nextAttempt(1, "boom", NOW, () -> 0.5)).isEmpty();
    }

    @Test
    void jitter_moves_the_delay_by_at_most_its_fraction_either_way() {
        RetryPolicy jittered = new RetryPolicy(3, Duration.ofSeconds(10), 2.0, Duration.ZERO, 0.2, Set.of());

        assertThat(jittered.nextAttempt(1, "x", NOW, () -> 0.0)).contains(NOW.plusSeconds(8));
        assertThat(jittered.nextAttempt(1, "x", NOW, () -> 0.999999)).contains(NOW.plusSeconds(12));
        assertThat(jittered.nextAttempt(2, "x", NOW, () -> 0.5)).contains(NOW.plusSeconds(20));
    }
}
