package io.cyclium.episode;

/**
 * Fired (as a CDI event) on every terminal path — done included — after the terminal status is
 * committed. Actor slots, circuit breakers and the workflow engine listen to it.
 *
 * @param advancedInCommit the episode runs a workflow step, and its terminal write already recorded
 *                         the step's outcome and advanced the instance in the same transaction: the
 *                         workflow engine has nothing left to do for this event
 */
public record EpisodeFinished(String episodeId, String actorId, String expectationId, String status, String errorClass,
        String workflowInstanceId, String workflowStepId, boolean advancedInCommit) {

    /** A terminal event whose workflow step (if any) the engine still has to record and advance. */
    public EpisodeFinished(String episodeId, String actorId, String expectationId, String status, String errorClass,
            String workflowInstanceId, String workflowStepId) {
        this(episodeId, actorId, expectationId, status, errorClass, workflowInstanceId, workflowStepId, false);
    }

    /** The same event, saying the step was advanced in the terminal write's own transaction. */
    public EpisodeFinished advanced() {
        return new EpisodeFinished(episodeId, actorId, expectationId, status, errorClass, workflowInstanceId, workflowStepId,
                true);
    }
}
