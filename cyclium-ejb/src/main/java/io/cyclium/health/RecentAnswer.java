package io.cyclium.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The last answer to a question that costs a database round trip, given again to whoever asks
 * within {@code ttl} of it on the clock. A probe polled by several load balancers and orchestrators
 * (or by anyone: readiness is open) then costs at most one round trip per {@code ttl}, however often
 * it is asked. Callers that arrive while the question is being asked wait for that answer instead
 * of asking again: never more than one round trip at a time.
 */
final class RecentAnswer<T> {

    private record Held<T>(Instant at, T value) {
    }

    private final Clock clock;
    private final Duration ttl;
    private final Supplier<T> question;
    private volatile Held<T> held;

    RecentAnswer(Clock clock, Duration ttl, Supplier<T> question) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.question = Objects.requireNonNull(question, "question");
    }

    T get() {
        Held<T> h = held;
        if (fresh(h)) {
            return h.value();
        }
        synchronized (this) {
            h = held;
            if (fresh(h)) {
                return h.value(); // asked by the caller we waited for
            }
            T value = question.get();
            held = new Held<>(clock.instant(), value);
            return value;
        }
    }

    /** Fresh: asked at most {@code ttl} ago, and not "in the future" (a clock set back asks again). */
    private boolean fresh(Held<T> h) {
        if (h == null) {
            return false;
        }
        Instant now = clock.instant();
        return !now.isBefore(h.at()) && now.isBefore(h.at().plus(ttl));
    }
}
