package io.cyclium.episode;

/**
 * Fired (as a CDI event) on every terminal path — done included — after the terminal status is
 * committed. Actor slots, circuit breakers and the workflow engine listen to it.
 */
public record EpisodeFinished(String episodeId, String actorId, String expectationId, String status, String errorClass,
        String workflowInstanceId, String workflowStepId) {
}
