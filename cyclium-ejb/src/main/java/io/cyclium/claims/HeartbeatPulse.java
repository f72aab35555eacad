package io.cyclium.claims;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/**
 * When this node's {@link Heartbeat} last began a tick, readable without entering the Heartbeat
 * singleton (whose container lock a stuck tick holds: a probe asking it would hang with it).
 * Liveness probes watch it.
 */
@ApplicationScoped
public class HeartbeatPulse {

    private final long bootNanos = System.nanoTime();
    private volatile long lastBeatNanos;

    /** Created when the application starts, so "since boot" is since boot and not since the first probe. */
    void onStart(@jakarta.enterprise.event.Observes @jakarta.enterprise.context.Initialized(ApplicationScoped.class) Object event) {
    }

    public void beat() {
        lastBeatNanos = System.nanoTime();
    }

    /** Time since the last tick began, or since the application started before the first one. */
    public Duration sinceLastBeat() {
        long last = lastBeatNanos;
        return Duration.ofNanos(System.nanoTime() - (last == 0 ? bootNanos : last));
    }

    /** Whether any tick has begun yet. */
    public boolean beaten() {
        return lastBeatNanos != 0;
    }
}
