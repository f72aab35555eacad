package io.cyclium.trigger;

/**
 * Where {@link TriggerDispatch} hands a claimed request: the actors of this node. In the container
 * the {@link TriggerPoller} answers from the node's {@code ActorHost} and its modes; a plain test
 * answers with the actors it pretends to run.
 */
public interface DispatchTarget {

    /** Whether the actor runs here in full mode (else another full node that runs it takes the request). */
    boolean runsHere(String actorId);

    /**
     * Hands the deferred episode to its actor (queued under its slots, never dropped); false when the
     * actor is not here. Throws when the hand-over failed.
     */
    boolean dispatch(String actorId, String episodeId, boolean resume);

    /** {@link #dispatch} naming the episode's expectation, so that a pause of the expectation holds it too. */
    default boolean dispatch(String actorId, String expectationId, String episodeId, boolean resume) {
        return dispatch(actorId, episodeId, resume);
    }
}
