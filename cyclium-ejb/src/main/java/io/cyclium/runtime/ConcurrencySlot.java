package io.cyclium.runtime;

/**
 * One cluster-wide limit an episode must fit under before it starts: at most {@code limit} episodes
 * hold a slot of ({@code scope}, {@code key}) at once. {@code scope} is "actor/expectation" for an
 * expectation's key ({@code @Expectation(concurrencyKey)}), the actor id with key {@value #WHOLE_ACTOR}
 * for {@code @Actor(clusterMaxConcurrentEpisodes)}.
 */
public record ConcurrencySlot(String scope, String key, int limit) {

    /** The key of an actor-wide limit. */
    public static final String WHOLE_ACTOR = "*";

    public ConcurrencySlot {
        if (limit < 1) {
            throw new IllegalArgumentException("limit of " + scope + " " + key + " must be at least 1, not " + limit);
        }
    }

    static ConcurrencySlot ofKey(String actorId, String expectationId, String key, int limit) {
        return new ConcurrencySlot(actorId + "/" + expectationId, key, limit);
    }

    static ConcurrencySlot ofActor(String actorId, int limit) {
        return new ConcurrencySlot(actorId, WHOLE_ACTOR, limit);
    }

    /** How an operator reads it: "key tenant-a", or "actor worker". */
    public String describe() {
        return WHOLE_ACTOR.equals(key) ? "actor " + scope : "key " + key;
    }
}
