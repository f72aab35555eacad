package io.cyclium.episode;

import java.time.Instant;

/**
 * What a strategy knows about the turn it is deciding. {@link #idempotencyKey()} is stable for a
 * given episode and step number, so an external call retried after a restart (or by the node that
 * took the episode over) can be recognised by the system it calls.
 */
public record StepContext(String episodeId, String actorId, String expectationId, int stepNo, int turnsUsed,
        Budget budget, TriggerInfo trigger, String sourceEnv, Instant now, boolean resumed) {

    public String idempotencyKey() {
        return episodeId + ":" + stepNo;
    }
}
