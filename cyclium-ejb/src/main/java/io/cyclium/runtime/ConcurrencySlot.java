package io.cyclium.runtime;

/**
 * One cluster-wide limit an episode must fit under before it starts: at most {@code limit} episodes
 * hold a slot of ({@code scope}, {@code key}) at once. {@code scope} is "actor/expectation" for an
 * expectation's key ({@code @Expectation(concurrencyKey)}), the actor id with key {@value #WHOLE_ACTOR}
 * for {@code @Actor(clusterMaxConcurrentEpisodes)}, "workflow:&lt;workflow&gt;/&lt;step&gt;" for a workflow
 * step's own key (its definition's {@code concurrencyKey}).
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

    /** {@code limits} with a workflow step's own limit first (it is the key fairness turns over); {@code step} null: as they are. */
    public static java.util.List<ConcurrencySlot> stepFirst(ConcurrencySlot step, java.util.List<ConcurrencySlot> limits) {
        if (step == null) {
            return limits;
        }
        java.util.List<ConcurrencySlot> all = new java.util.ArrayList<>(limits.size() + 1);
        all.add(step);
        all.addAll(limits);
        return all;
    }

    /** The scope of a workflow step's own key: "workflow:&lt;workflow&gt;/&lt;step&gt;". */
    public static String ofStep(String workflowId, String stepId) {
        return STEP + workflowId + "/" + stepId;
    }

    private static final String STEP = "workflow:";

    /** How an operator reads it: "key tenant-a", "actor worker", or "step review/charge key tenant-a". */
    public String describe() {
        if (scope.startsWith(STEP)) {
            return "step " + scope.substring(STEP.length()) + " key " + key;
        }
        return WHOLE_ACTOR.equals(key) ? "actor " + scope : "key " + key;
    }
}
