package io.cyclium.timing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class JitterTest {

    /** A generator that answers every bounded draw with {@code bound - 1 - offsetFromTop}. */
    private static final class FixedGenerator implements RandomGenerator {
        final List<Long> bounds = new ArrayList<>();
        final long offsetFromTop;

        FixedGenerator(long offsetFromTop) {
            this.offsetFromTop = offsetFromTop;
        }

        @Override
        public long nextLong() {
            throw new AssertionError("jitter should ask for a bounded value");
        }

        @Override
        public long nextLong(long bound) {
            bounds.add(bound);
            return bound - 1 - offsetFromTop;
        }
    }

    private static List<Long> draws(Jitter jitter, int count) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(jitter.nextMillis());
        }
        return out;
    }

    @Test
    void the_default_bound_is_200_ms() {
        assertThat(new Jitter().max()).isEqualTo(Duration.ofMillis(200));
        assertThat(new Jitter()).hasToString("Jitter[0-200 ms]");
    }

    @Test
    void default_delays_stay_between_zero_and_200_ms() {
        Jitter jitter = new Jitter();
        for (int i = 0; i < 5_000; i++) {
            assertThat(jitter.nextDelay()).isBetween(Duration.ZERO, Duration.ofMillis(200));
        }
    }

    @Test
    void the_upper_bound_is_included() {
        FixedGenerator top = new FixedGenerator(0);
        Jitter jitter = new Jitter(Duration.ofMillis(200), top);
        assertThat(jitter.nextDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(top.bounds).containsExactly(201L);
    }

    @Test
    void the_lower_bound_is_zero() {
        Jitter jitter = new Jitter(Duration.ofMillis(200), new FixedGenerator(200));
        assertThat(jitter.nextMillis()).isZero();
    }

    @Test
    void a_seeded_generator_gives_a_repeatable_sequence() {
        List<Long> first = draws(new Jitter(Duration.ofMillis(200), new SplittableRandom(42)), 50);
        List<Long> second = draws(new Jitter(Duration.ofMillis(200), new SplittableRandom(42)), 50);
        List<Long> otherSeed = draws(new Jitter(Duration.ofMillis(200), new SplittableRandom(43)), 50);
        assertThat(first).isEqualTo(second).isNotEqualTo(otherSeed);
        assertThat(first).allSatisfy(ms -> assertThat(ms).isBetween(0L, 200L));
    }

    @Test
    void every_value_in_a_small_range_comes_up() {
        Set<Long> seen = new HashSet<>(draws(new Jitter(Duration.ofMillis(3), new SplittableRandom(7)), 1_000));
        assertThat(seen).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    }

    @Test
    void a_configured_bound_is_respected() {
        Jitter jitter = new Jitter(Duration.ofMillis(20), new SplittableRandom(1));
        assertThat(jitter.max()).isEqualTo(Duration.ofMillis(20));
        assertThat(draws(jitter, 2_000)).allSatisfy(ms -> assertThat(ms).isBetween(0L, 20L));
        assertThat(new Jitter(Duration.ofSeconds(1)).max()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void a_zero_bound_always_gives_zero_without_drawing() {
        FixedGenerator generator = new FixedGenerator(0);
        Jitter jitter = new Jitter(Duration.ZERO, generator);
        assertThat(jitter.nextDelay()).isEqualTo(Duration.ZERO);
        assertThat(generator.bounds).isEmpty();
    }

    @Test
    void the_largest_possible_bound_does_not_overflow() {
        Jitter jitter = new Jitter(Duration.ofMillis(Long.MAX_VALUE), new SplittableRandom(3));
        assertThat(draws(jitter, 100)).allSatisfy(ms -> assertThat(ms).isNotNegative());
    }

    @Test
    void a_negative_bound_is_rejected() {
        assertThatThrownBy(() -> new Jitter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jitter bound must not be negative, got PT-0.001S");
    }

    @Test
    void a_missing_generator_is_rejected() {
        assertThatThrownBy(() -> new Jitter(Duration.ofMillis(10), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("random");
    }
}
