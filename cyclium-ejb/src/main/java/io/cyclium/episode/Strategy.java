package io.cyclium.episode;

import jakarta.json.JsonObject;

/**
 * How an expectation's episodes think: a loop of decide → (runtime executes) → onResult, ending in
 * done or converge. Implement as a CDI bean (any scope; it must hold no per-episode fields: all
 * per-episode state lives in {@code S}, which is checkpointed as JSON through JSON-B and must
 * survive a round trip).
 *
 * <p>Steps are at-least-once across crashes: an episode restarted from its checkpoint repeats the
 * steps after it. Make external calls idempotent with {@link StepContext#idempotencyKey()}.
 * Outputs returned from {@link #converge} are delivered exactly once.
 *
 * @param <S> the state type
 */
public interface Strategy<S> {

    /** The state class, for JSON-B (de)serialisation of checkpoints. */
    Class<S> stateType();

    /** The initial state for a fresh run. */
    S init(TriggerInfo trigger, StepContext context) throws Exception;

    /** The next step. Called once per turn; budget and cancel are checked before it. */
    Step decide(S state, StepContext context) throws Exception;

    /** Folds a step's outcome into the state. The default ignores it. */
    default S onResult(S state, StepResult result, StepContext context) throws Exception {
        return state;
    }

    /** Concludes the episode. The default concludes nothing. */
    default Convergence converge(S state, StepContext context) throws Exception {
        return Convergence.of(null);
    }

    /** The schema version checkpoints are written under. Raise it when {@code S} changes shape. */
    default int stateVersion() {
        return 1;
    }

    /**
     * Migrates a checkpoint written under {@code fromVersion} to {@code fromVersion + 1}. Called
     * once per version step. The default refuses, which fails a resume rather than guessing.
     */
    default JsonObject migrate(int fromVersion, JsonObject state) {
        throw new CheckpointMigrationException("no migration from checkpoint version " + fromVersion
                + " to " + (fromVersion + 1) + " in " + getClass().getName());
    }
}
