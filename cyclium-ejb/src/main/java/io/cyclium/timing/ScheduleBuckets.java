package io.cyclium.timing;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * Dedupe buckets for scheduled triggers.
 *
 * <p>Every node of a cluster runs the same schedule and computes a bucket for each fire; the
 * database lets only one episode per bucket through. A bucket therefore has to depend only on the
 * schedule and the fire time, never on the node.
 *
 * <p>An interval schedule's bucket is as wide as the interval itself and aligned to the UTC epoch:
 * the bucket starts at {@code floor(epochMillis / intervalMillis) * intervalMillis}. An hourly
 * schedule gets one bucket per hour, a 15-minute schedule one per quarter hour, and a 3-day
 * schedule one per three days counted from 1970-01-01. A cron tick's bucket is the tick itself,
 * truncated to the minute. Buckets are written as ISO-8601 instants in UTC, such as
 * {@code 2026-06-05T05:00:00Z}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ScheduleBuckets {

    /** The shortest interval a schedule may have. */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private final Duration interval;
    private final long intervalMillis;

    private ScheduleBuckets(Duration interval) {
        this.interval = interval;
        this.intervalMillis = interval.toMillis();
    }

    /**
     * Buckets for a schedule that fires every {@code interval}.
     *
     * @throws IllegalArgumentException when the interval is shorter than one second or is not a
     *     whole number of milliseconds
     */
    public static ScheduleBuckets every(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("schedule interval must be at least 1 second, got "
                    + interval.toMillis() + " ms (" + interval + ")");
        }
        if (interval.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("schedule interval must be a whole number of"
                    + " milliseconds, got " + interval);
        }
        return new ScheduleBuckets(interval);
    }

    /** Shorthand for {@code every(interval).bucket(at)}. */
    public static String intervalBucket(Duration interval, Instant at) {
        return every(interval).bucket(at);
    }

    /** The bucket of a cron tick: the tick truncated to the minute, as an ISO-8601 instant. */
    public static String cronBucket(Instant tick) {
        Objects.requireNonNull(tick, "tick");
        return tick.truncatedTo(ChronoUnit.MINUTES).toString();
    }

    /** The interval these buckets were made for. */
    public Duration interval() {
        return interval;
    }

    /** The start of the bucket that contains {@code at}. */
    public Instant bucketStart(Instant at) {
        Objects.requireNonNull(at, "at");
        long start = Math.multiplyExact(Math.floorDiv(at.toEpochMilli(), intervalMillis), intervalMillis);
        return Instant.ofEpochMilli(start);
    }

    /** The bucket that contains {@code at}, as an ISO-8601 instant in UTC. */
    public String bucket(Instant at) {
        return bucketStart(at).toString();
    }

    @Override
    public String toString() {
        return "ScheduleBuckets[every " + interval + "]";
    }
}
