package io.cyclium.workflow;

import jakarta.json.JsonObject;

/**
 * Starts the episode of one step attempt (the container's is {@code RuntimeStepLauncher}, over the
 * actor runtime). The dedupe key {@code workflow:<instance>:<step>:<attempt>} makes the start
 * idempotent: a second launch of the same attempt, from any node, is a {@link Kind#DUPLICATE}.
 */
public interface StepLauncher {

    enum Kind {
        /** The episode was created and started on this node. */
        STARTED,
        /** The episode was created and waits (a slot, or a full node when this one is trigger-only). */
        WAITING,
        /** The attempt's episode already exists. */
        DUPLICATE,
        /** Nothing was created here (actor not on this node, node draining): another node's reconcile will. */
        UNAVAILABLE
    }

    record Launch(Kind kind, String episodeId, String why) {
    }

    Launch launch(StepDefinition step, String instanceId, int attempt, String dedupeKey, JsonObject input, String stack,
            String env);

    /** Asks a step's episode to stop (instance aborted or canceled); nothing when it already ended. */
    void cancel(String episodeId);

    static String dedupeKey(String instanceId, String stepId, int attempt) {
        return "workflow:" + instanceId + ":" + stepId + ":" + attempt;
    }
}
