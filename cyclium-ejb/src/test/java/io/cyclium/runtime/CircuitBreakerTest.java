package io.cyclium.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.runtime.CircuitBreaker.State;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What {@link ActorRuntimeTest} cannot reach through fires and finished events. */
class CircuitBreakerTest {

    private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

    private static CircuitBreaker openedAt(Instant when) {
        CircuitBreaker breaker = new CircuitBreaker(1, Duration.ofSeconds(30));
        breaker.record(false, when);
        return breaker;
    }

    @Test
    void a_lost_probe_outside_half_open_does_not_open_the_way() {
        CircuitBreaker breaker = openedAt(T0);

        breaker.probeNotRun();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.allow(T0.plusSeconds(29))).isFalse();
    }

    @Test
    void a_lost_probe_in_half_open_lets_exactly_one_more_through() {
        CircuitBreaker breaker = openedAt(T0);
        assertThat(breaker.allow(T0.plusSeconds(30))).isTrue();

        breaker.probeNotRun();

        assertThat(breaker.allow(T0.plusSeconds(31))).isTrue();
        assertThat(breaker.allow(T0.plusSeconds(32))).isFalse();
    }

    @Test
    void a_failure_recorded_while_open_restarts_the_wait_for_half_open() {
        // An episode that started before the breaker opened fails later: the wait counts from then.
        CircuitBreaker breaker = openedAt(T0);

        breaker.record(false, T0.plusSeconds(20));

        assertThat(breaker.allow(T0.plusSeconds(30))).isFalse();
        assertThat(breaker.allow(T0.plusSeconds(50))).isTrue();
    }

    @Test
    void a_success_recorded_while_open_closes_it_and_clears_the_count() {
        CircuitBreaker breaker = new CircuitBreaker(2, Duration.ofSeconds(30));
        breaker.record(false, T0);
        breaker.record(false, T0);

        breaker.record(true, T0.plusSeconds(1));

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.consecutiveFailures()).isZero();
        assertThat(breaker.allow(T0.plusSeconds(2))).isTrue();
    }
}
