package io.cyclium.episode;

import jakarta.json.JsonValue;

/**
 * The outcome of a step, handed back to {@link Strategy#onResult}.
 *
 * @param kind  observed, observation_failed, checkpointed, output_proposed, approved, wait_resolved,
 *              wait_timed_out, slept
 * @param name  the observation name, checkpoint phase, output type, or wait reference
 * @param value the observed value, the approved plan, or what resolved the wait
 * @param error the failure message when the observation threw
 */
public record StepResult(String kind, String name, JsonValue value, String error) {

    public boolean failed() {
        return error != null;
    }

    /** The wait ended by its timeout, not by a signal, an event or an operator (the timeout branch). */
    public boolean timedOut() {
        return "wait_timed_out".equals(kind);
    }

    /** A sleep ended. */
    public boolean slept() {
        return "slept".equals(kind);
    }

    public static StepResult observed(String name, JsonValue value) {
        return new StepResult("observed", name, value == null ? JsonValue.NULL : value, null);
    }

    public static StepResult observationFailed(String name, String error) {
        return new StepResult("observation_failed", name, JsonValue.NULL, error);
    }

    public static StepResult checkpointed(String phase) {
        return new StepResult("checkpointed", phase, JsonValue.NULL, null);
    }

    public static StepResult outputProposed(String type) {
        return new StepResult("output_proposed", type, JsonValue.NULL, null);
    }

    public static StepResult approved(JsonValue plan) {
        return new StepResult("approved", "approval", plan, null);
    }

    public static StepResult waitResolved(String reference, JsonValue value) {
        return new StepResult("wait_resolved", reference, value == null ? JsonValue.NULL : value, null);
    }

    public static StepResult waitTimedOut(String reference) {
        return new StepResult("wait_timed_out", reference, JsonValue.NULL, null);
    }

    /** {@code until}: when the sleep was due (ISO-8601, UTC). */
    public static StepResult slept(JsonValue until) {
        return new StepResult("slept", "sleep", until == null ? JsonValue.NULL : until, null);
    }
}
