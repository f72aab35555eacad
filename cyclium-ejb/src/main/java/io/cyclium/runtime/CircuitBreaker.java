package io.cyclium.runtime;

import java.time.Duration;
import java.time.Instant;

/**
 * Per (actor, expectation) and per node: after {@code threshold} consecutive failed or canceled
 * episodes it opens and rejects fires; after {@code halfOpenAfter} it lets one probe through; the
 * probe's success closes it, its failure re-opens it. Node-local by design: each node trips on
 * what it sees.
 */
final class CircuitBreaker {

    enum State { CLOSED, OPEN, HALF_OPEN }

    private final int threshold;
    private final Duration halfOpenAfter;
    private int consecutiveFailures;
    private State state = State.CLOSED;
    private Instant openedAt;
    private boolean probeInFlight;

    CircuitBreaker(int threshold, Duration halfOpenAfter) {
        this.threshold = threshold;
        this.halfOpenAfter = halfOpenAfter;
    }

    synchronized boolean allow(Instant now) {
        if (state == State.OPEN && !now.isBefore(openedAt.plus(halfOpenAfter))) {
            state = State.HALF_OPEN;
            probeInFlight = false;
        }
        if (state == State.CLOSED) {
            return true;
        }
        if (state == State.HALF_OPEN && !probeInFlight) {
            probeInFlight = true;
            return true;
        }
        return false;
    }

    synchronized void record(boolean success, Instant now) {
        if (success) {
            consecutiveFailures = 0;
            state = State.CLOSED;
            return;
        }
        consecutiveFailures++;
        if (state == State.HALF_OPEN || consecutiveFailures >= threshold) {
            state = State.OPEN;
            openedAt = now;
            probeInFlight = false;
        }
    }

    /**
     * The probe {@link #allow} let through created no episode here (dropped, or another node's insert
     * won its key), so no outcome will ever be recorded for it on this node: let the next fire probe.
     * Without this the breaker stayed half-open with a probe "in flight" and rejected every fire.
     */
    synchronized void probeNotRun() {
        if (state == State.HALF_OPEN) {
            probeInFlight = false;
        }
    }

    /** How long an open breaker stays open from {@code now} (zero when it is not open). */
    synchronized java.time.Duration untilHalfOpen(Instant now) {
        if (state != State.OPEN) {
            return java.time.Duration.ZERO;
        }
        java.time.Duration left = java.time.Duration.between(now, openedAt.plus(halfOpenAfter));
        return left.isNegative() ? java.time.Duration.ZERO : left;
    }

    synchronized State state() {
        return state;
    }

    synchronized int consecutiveFailures() {
        return consecutiveFailures;
    }
}
