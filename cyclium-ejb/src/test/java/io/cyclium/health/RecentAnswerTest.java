package io.cyclium.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RecentAnswerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-05T03:00:00Z"));
    private final AtomicInteger asked = new AtomicInteger();
    private final RecentAnswer<Integer> answer = new RecentAnswer<>(clock, Duration.ofSeconds(1), asked::incrementAndGet);

    @Test
    void many_probes_within_the_ttl_ask_the_question_once() {
        for (int i = 0; i < 100; i++) {
            assertThat(answer.get()).isEqualTo(1);
            clock.advance(Duration.ofMillis(9));
        }
        assertThat(asked).hasValue(1);
    }

    @Test
    void a_probe_after_the_ttl_asks_again_and_gets_the_new_answer() {
        assertThat(answer.get()).isEqualTo(1);
        clock.advance(Duration.ofMillis(999));
        assertThat(answer.get()).isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(answer.get()).isEqualTo(2);
        assertThat(asked).hasValue(2);
    }

    @Test
    void a_clock_set_back_asks_again_instead_of_keeping_the_answer_for_as_long() {
        assertThat(answer.get()).isEqualTo(1);
        clock.set(Instant.parse("2026-12-05T02:00:00Z"));
        assertThat(answer.get()).isEqualTo(2);
    }
}
