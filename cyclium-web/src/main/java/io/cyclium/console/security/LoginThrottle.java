package io.cyclium.console.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Slows down password guessing: after {@code freeFailures} failed logins for one user from one
 * address ({@code cyclium.security.failed-logins-before-delay}, default 3), that pair must wait before its next attempt is even checked — 1 s, then twice as long
 * after each further failure, at most {@link #MAX_WAIT}. A success clears the pair. Attempts
 * during the wait are refused without looking at the password, so a guesser learns nothing and
 * costs nothing; the wait does not hold a request thread.
 *
 * <p>Memory is bounded: at most {@link #MAX_PAIRS} pairs are remembered, the least recently
 * failed forgotten first (a flood of invented user names cannot grow the map). Per node: a
 * guesser spread over N nodes gets N times the attempts, still a few per minute each.
 */
public final class LoginThrottle {

    static final Duration FIRST_WAIT = Duration.ofSeconds(1);
    static final Duration MAX_WAIT = Duration.ofMinutes(5);
    static final int MAX_PAIRS = 10_000;

    private record Failures(int count, Instant at) {
    }

    private final Clock clock;
    private final int freeFailures;
    private final Map<String, Failures> failures = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
            return size() > MAX_PAIRS;
        }
    };

    public LoginThrottle(Clock clock, int freeFailures) {
        this.clock = clock;
        this.freeFailures = freeFailures;
    }

    /** How long {@code user} from {@code address} must still wait before an attempt is checked; empty: go ahead. */
    public synchronized Optional<Duration> waitFor(String user, String address) {
        Failures f = failures.get(key(user, address));
        if (f == null || f.count() < freeFailures) {
            return Optional.empty();
        }
        Duration left = Duration.between(clock.instant(), f.at().plus(delay(f.count() - freeFailures)));
        return left.isNegative() || left.isZero() ? Optional.empty() : Optional.of(left);
    }

    public synchronized void failed(String user, String address) {
        failures.merge(key(user, address), new Failures(1, clock.instant()),
                (old, one) -> new Failures(old.count() + 1, one.at()));
    }

    public synchronized void succeeded(String user, String address) {
        failures.remove(key(user, address));
    }

    synchronized int pairs() {
        return failures.size();
    }

    /** The wait after {@code beyond} failures past the free ones (0: the last free one): 1 s doubling up to the cap. */
    static Duration delay(int beyond) {
        int doublings = Math.min(beyond, 20);
        Duration d = FIRST_WAIT.multipliedBy(1L << doublings);
        return d.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : d;
    }

    private static String key(String user, String address) {
        return (user == null ? "" : user) + '\n' + (address == null ? "" : address);
    }
}
