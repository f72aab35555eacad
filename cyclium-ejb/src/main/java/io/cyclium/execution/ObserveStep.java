package io.cyclium.execution;

import io.cyclium.store.Jsons;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.StepResult;
import jakarta.json.JsonValue;
import java.util.Optional;

/**
 * An observe step: runs the strategy's observation and journals what it saw, or the error it
 * threw (an observation that fails is a result the strategy decides about, not a crash; a journal
 * write that fails is neither).
 */
final class ObserveStep {

    private ObserveStep() {
    }

    /** The result for the strategy; empty when the journal row was taken by another owner (lease lost). */
    static Optional<StepResult> run(Step.Observe o, StepContext ctx, EpisodeWrites writes) {
        long t0 = System.nanoTime();
        JsonValue value;
        Exception failure = null;
        try {
            value = o.observation().observe(ctx);
        } catch (Exception e) {
            value = null;
            failure = e;
        }
        // Only the observation's own failure is the strategy's to decide about. The journal write is
        // outside the try: a database that cannot take the row is the task's problem (it retries, then
        // gives the episode up to recovery), never an observation that "failed".
        if (failure == null) {
            boolean written = writes.journal(StepKind.OBSERVATION, Jsons.object().add("name", o.name())
                    .add("value", value == null ? JsonValue.NULL : value).build(), null, null, millisSince(t0));
            return written ? Optional.of(StepResult.observed(o.name(), value)) : Optional.empty();
        }
        boolean written = writes.journal(StepKind.OBSERVATION, Jsons.object().add("name", o.name())
                .add("error", String.valueOf(failure)).build(), "observation_failed", null, millisSince(t0));
        return written ? Optional.of(StepResult.observationFailed(o.name(), String.valueOf(failure.getMessage())))
                : Optional.empty();
    }

    private static Long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
