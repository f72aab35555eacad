package io.cyclium.config;

import java.time.Duration;

/**
 * How queued work under flow control is started: {@code recheck} is how often a node tries again
 * the work that waits for a cluster-wide concurrency limit (a slot freed on another node tells this
 * one nothing); {@code aging} is how long a queued episode waits to count one priority level more
 * (zero: no aging, a steady stream of higher priorities can then hold lower ones back for ever).
 */
public record FlowSettings(Duration recheck, Duration aging) {

    public static final FlowSettings DEFAULTS = new FlowSettings(Duration.ofMillis(500), Duration.ofSeconds(60));
}
