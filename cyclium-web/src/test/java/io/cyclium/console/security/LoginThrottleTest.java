package io.cyclium.console.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    private final HandClock clock = new HandClock();
    private final LoginThrottle throttle = new LoginThrottle(clock, 3);

    private void fail(int times, String user, String address) {
        for (int i = 0; i < times; i++) {
            throttle.failed(user, address);
        }
    }

    @Test
    void the_first_failures_cost_nothing_then_each_one_doubles_the_wait() {
        fail(2, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).isEmpty();

        fail(1, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).contains(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(throttle.waitFor("admin", "10.0.0.9")).isEmpty();

        fail(1, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).contains(Duration.ofSeconds(2));
        fail(1, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).contains(Duration.ofSeconds(4));
    }

    @Test
    void the_wait_never_exceeds_five_minutes() {
        fail(60, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).contains(LoginThrottle.MAX_WAIT);
    }

    @Test
    void a_guesser_slows_down_only_its_own_user_and_address_pair() {
        fail(5, "admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).isPresent();
        assertThat(throttle.waitFor("admin", "10.0.0.10")).as("the admin from elsewhere").isEmpty();
        assertThat(throttle.waitFor("viewer", "10.0.0.9")).as("another user from there").isEmpty();
    }

    @Test
    void a_success_clears_the_pair() {
        fail(5, "admin", "10.0.0.9");
        throttle.succeeded("admin", "10.0.0.9");
        assertThat(throttle.waitFor("admin", "10.0.0.9")).isEmpty();
    }

    @Test
    void a_flood_of_invented_users_keeps_at_most_the_bounded_number_of_pairs_and_forgets_the_oldest() {
        fail(5, "first", "10.0.0.9");
        for (int i = 0; i < LoginThrottle.MAX_PAIRS + 500; i++) {
            throttle.failed("user-" + i, "10.0.0.9");
        }
        assertThat(throttle.pairs()).isEqualTo(LoginThrottle.MAX_PAIRS);
        assertThat(throttle.waitFor("first", "10.0.0.9")).as("the oldest pair was forgotten").isEmpty();
    }
}
