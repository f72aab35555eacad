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
 * threw (an observation that fails is a result the strategy decides about, not a crash).
 */
final class ObserveStep {

    private ObserveStep() {
    }

    /** The result for the strategy; empty when the journal row was taken by another owner (lease lost). */
    static Optional<StepResult> run(Step.Observe o, StepContext ctx, EpisodeWrites writes) {
        long t0 = System.nanoTime();
        try {
            JsonValue value = o.observation().observe(ctx);
            boolean written = writes.journal(StepKind.OBSERVATION, Jsons.object().add("name", o.name())
                    .add("value", value == null ? JsonValue.NULL : value).build(), null, null, millisSince(t0));
            return written ? Optional.of(StepResult.observed(o.name(), value)) : Optional.empty();
        } catch (Exception e) {
            boolean written = writes.journal(StepKind.OBSERVATION, Jsons.object().add("name", o.name())
                    .add("error", String.valueOf(e)).build(), "observation_failed", null, millisSince(t0));
            return written ? Optional.of(StepResult.observationFailed(o.name(), String.valueOf(e.getMessage())))
                    : Optional.empty();
        }
    }

    private static Long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
