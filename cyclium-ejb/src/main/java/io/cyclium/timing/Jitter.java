package io.cyclium.timing;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * A short random delay taken before inserting an episode, so that the nodes of a cluster that all
 * saw the same trigger do not always race in the same order and the wins spread across nodes.
 *
 * <p>Each delay is a whole number of milliseconds between zero and {@link #max()}, both included,
 * uniformly distributed. By default the bound is {@value #DEFAULT_MAX_MILLIS} ms and the random
 * numbers come from {@link ThreadLocalRandom}; tests pass a seeded {@link RandomGenerator} to get
 * a repeatable sequence. Thread-safe when the given generator is (the default one is).
 */
public final class Jitter {

    /** The default upper bound of a delay, in milliseconds. */
    public static final long DEFAULT_MAX_MILLIS = 200;

    private final long maxMillis;
    /** Null means: the calling thread's {@link ThreadLocalRandom}. */
    private final RandomGenerator random;

    /** Delays of 0 to 200 ms from {@link ThreadLocalRandom}. */
    public Jitter() {
        this(Duration.ofMillis(DEFAULT_MAX_MILLIS));
    }

    /** Delays of 0 to {@code max} from {@link ThreadLocalRandom}. */
    public Jitter(Duration max) {
        this.maxMillis = checkMax(max);
        this.random = null;
    }

    /** Delays of 0 to {@code max} drawn from {@code random}. */
    public Jitter(Duration max, RandomGenerator random) {
        this.maxMillis = checkMax(max);
        this.random = Objects.requireNonNull(random, "random");
    }

    private static long checkMax(Duration max) {
        Objects.requireNonNull(max, "max");
        if (max.isNegative()) {
            throw new IllegalArgumentException("jitter bound must not be negative, got " + max);
        }
        return max.toMillis();
    }

    /** The longest delay this jitter returns. */
    public Duration max() {
        return Duration.ofMillis(maxMillis);
    }

    /** The next delay, in milliseconds, between 0 and {@link #max()} inclusive. */
    public long nextMillis() {
        if (maxMillis == 0) {
            return 0;
        }
        RandomGenerator generator = random != null ? random : ThreadLocalRandom.current();
        return maxMillis == Long.MAX_VALUE
                ? generator.nextLong() & Long.MAX_VALUE
                : generator.nextLong(maxMillis + 1);
    }

    /** The next delay, between zero and {@link #max()} inclusive. */
    public Duration nextDelay() {
        return Duration.ofMillis(nextMillis());
    }

    @Override
    public String toString() {
        return "Jitter[0-" + maxMillis + " ms]";
    }
}
