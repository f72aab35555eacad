package io.cyclium.episode;

import java.time.Instant;

/**
 * What a strategy knows about the turn it is deciding.
 *
 * @param fromCheckpoint        the checkpoint the strategy's state derives from (its number; -1 for init)
 * @param turnsSinceCheckpoint  turns decided since that checkpoint, this one included
 */
public record StepContext(String episodeId, String actorId, String expectationId, int stepNo, int turnsUsed,
        Budget budget, TriggerInfo trigger, String sourceEnv, Instant now, boolean resumed, int fromCheckpoint,
        int turnsSinceCheckpoint) {

    /**
     * The same for the same turn of the same episode on every run of it: a restart from a
     * checkpoint (on this node or the one that took the episode over) decides the turns after
     * that checkpoint again, and they get the keys they had the first time — markers the restart
     * journals ({@code interrupted}, {@code resumed}) do not shift them. Hand it to an external
     * system that deduplicates, and a call repeated by a restart is recognised there.
     */
    public String idempotencyKey() {
        return episodeId + ":" + (fromCheckpoint < 0 ? "init" : "cp" + fromCheckpoint) + "." + turnsSinceCheckpoint;
    }
}
