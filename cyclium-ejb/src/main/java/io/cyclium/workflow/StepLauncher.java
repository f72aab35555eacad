package io.cyclium.workflow;

import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;

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

    /**
     * Creates the attempt's episode inside the caller's transaction {@code em}, which holds the
     * instance's row while it is running ({@code WorkflowStore#holdRunning}): the episode row commits
     * with that hold or not at all, and nothing may start it before that commit. That is what orders
     * a launch against a cancel (see {@code WorkflowEngine#launch}). The runtime's launcher joins the
     * caller's JTA transaction, whose entity manager {@code em} is, and starts the episode after it
     * commits.
     */
    Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey, JsonObject input,
            String stack, String env);

    /**
     * {@link #launch} with the instance's span as the parent of the episode's runs ({@code null}
     * when tracing was off); a launcher that makes no spans ignores it.
     */
    default Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
            JsonObject input, String stack, String env, String traceParent) {
        return launch(em, step, instanceId, attempt, dedupeKey, input, stack, env);
    }

    /**
     * {@link #launch} naming the step's workflow, which a step's own concurrency key is scoped by
     * ({@link StepDefinition#concurrencyKey}); a launcher that enforces no keys ignores it.
     */
    default Launch launch(EntityManager em, String workflowId, StepDefinition step, String instanceId, int attempt,
            String dedupeKey, JsonObject input, String stack, String env, String traceParent) {
        return launch(em, step, instanceId, attempt, dedupeKey, input, stack, env, traceParent);
    }

    /** Asks a step's episode to stop (instance aborted or canceled); nothing when it already ended. */
    void cancel(String episodeId);

    static String dedupeKey(String instanceId, String stepId, int attempt) {
        return "workflow:" + instanceId + ":" + stepId + ":" + attempt;
    }
}
