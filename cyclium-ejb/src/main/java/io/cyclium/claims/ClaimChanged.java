package io.cyclium.claims;

/**
 * Fired (as a CDI event) when this node's claim gate took, settled or lost a lease — never for a
 * renewal, which the heartbeat does every few seconds for every lease. {@code change} is one of
 * {@code acquired}, {@code taken_over} (a lapsed or released lease of another owner), {@code completed},
 * {@code failed}, {@code lost} (another node holds it now). Open console pages listen to it; what
 * they show is read from the database again.
 */
public record ClaimChanged(String key, String owner, long fence, String change) {
}
