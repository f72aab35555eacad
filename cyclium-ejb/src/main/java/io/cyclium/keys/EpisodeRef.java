package io.cyclium.keys;

/** The few facts about an episode that findings, outputs and claims need; never an entity. */
public record EpisodeRef(String id, String actorId, String expectationId, String dedupeKey, String sourceStack,
        String sourceEnv) {
}
