package io.cyclium.episode;

import io.cyclium.output.OutputProposal;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The one thing a strategy decides to do next. The runtime executes it, journals it and hands the
 * outcome back through {@link Strategy#onResult}. Before every step the runtime checks the
 * claim, cancel requests, the drain and the budget.
 */
public sealed interface Step permits Step.Observe, Step.Checkpoint, Step.ProposeOutput, Step.RequestApproval,
        Step.Wait, Step.Sleep, Step.Done, Step.Converge {

    /** A call that observes the world (reads a resource, asks a service). */
    @FunctionalInterface
    interface Observation {
        JsonValue observe(StepContext context) throws Exception;
    }

    /** Run {@code observation}, journal its result under {@code name} and hand it back. */
    record Observe(String name, Observation observation) implements Step {
        public Observe {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(observation, "observation");
        }
    }

    /** Save the current state under {@code phase}; a restart resumes from the latest checkpoint. */
    record Checkpoint(String phase) implements Step {
        public Checkpoint {
            Objects.requireNonNull(phase, "phase");
        }
    }

    /** Journal a proposed output; it is delivered at converge, after the fence check. */
    record ProposeOutput(OutputProposal proposal) implements Step {
        public ProposeOutput {
            Objects.requireNonNull(proposal, "proposal");
        }
    }

    /**
     * Block the episode until someone approves or denies {@code plan}. The runtime records the
     * plan's hash; approving must name that hash, and on resume the plan is re-read and re-hashed,
     * so a journal row changed after approval cannot run a different plan.
     */
    record RequestApproval(JsonObject plan) implements Step {
        public RequestApproval {
            Objects.requireNonNull(plan, "plan");
        }
    }

    /**
     * Block the episode until {@code reference} is resolved from outside: a signal of that name
     * ({@code POST /episodes/{id}/signals/{reference}}, or one sent earlier and kept for it), an
     * event of type {@code reference} whose payload's {@code waitKey} is {@code key} (when a key is
     * given), or an operator's resolve. With a {@code timeout} (null: none) the wait ends after it
     * on the database clock, and the strategy sees {@link StepResult#timedOut()}. The episode holds
     * no thread and no slot while it waits.
     */
    record Wait(String reference, Duration timeout, String key) implements Step {
        public Wait {
            Objects.requireNonNull(reference, "reference");
            if (reference.isBlank() || reference.length() > 255) {
                throw new IllegalArgumentException("a wait's reference must be 1 to 255 characters, was \"" + reference + "\"");
            }
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new IllegalArgumentException("a wait's timeout must be positive, was " + timeout);
            }
            if (key != null && (key.isBlank() || key.length() > 255)) {
                throw new IllegalArgumentException("a wait's key must be 1 to 255 characters, was \"" + key + "\"");
            }
        }

        public Wait(String reference) {
            this(reference, null, null);
        }

        /** This wait, ended by the timeout branch after {@code after}. */
        public Wait timeout(Duration after) {
            return new Wait(reference, Objects.requireNonNull(after, "timeout"), key);
        }

        /** This wait, resolved also by an event of type {@code reference} whose payload's {@code waitKey} is {@code key}. */
        public Wait keyed(String waitKey) {
            return new Wait(reference, timeout, Objects.requireNonNull(waitKey, "key"));
        }
    }

    /**
     * Sleep: the episode leaves its slot and its thread, is stored with its due time, and resumes
     * from its checkpoint on any node that runs its actor once due. Either {@code duration} (from
     * now on the database clock) or {@code until} (an instant, compared with the database clock).
     * The strategy then sees {@link StepResult#slept()}.
     */
    record Sleep(Duration duration, Instant until) implements Step {
        public Sleep {
            if ((duration == null) == (until == null)) {
                throw new IllegalArgumentException("a sleep takes either a duration or an instant");
            }
            if (duration != null && duration.isNegative()) {
                throw new IllegalArgumentException("a sleep's duration must not be negative, was " + duration);
            }
        }
    }

    /** Finish without converging (nothing to raise or deliver). */
    record Done(String summary) implements Step {
    }

    /** Finish by calling {@link Strategy#converge}: findings and outputs, then a terminal status. */
    record Converge() implements Step {
    }

    static Step observe(String name, Observation observation) {
        return new Observe(name, observation);
    }

    static Step checkpoint(String phase) {
        return new Checkpoint(phase);
    }

    static Step proposeOutput(OutputProposal proposal) {
        return new ProposeOutput(proposal);
    }

    static Step requestApproval(JsonObject plan) {
        return new RequestApproval(plan);
    }

    static Wait waitFor(String reference) {
        return new Wait(reference);
    }

    /** {@link #waitFor(String)} that ends after {@code timeout}: the strategy then sees {@link StepResult#timedOut()}. */
    static Wait waitFor(String reference, Duration timeout) {
        return new Wait(reference, timeout, null);
    }

    /** Sleep for {@code duration} (database clock), then resume on any node. */
    static Step sleep(Duration duration) {
        return new Sleep(java.util.Objects.requireNonNull(duration, "duration"), null);
    }

    /** Sleep until {@code instant} (compared with the database clock), then resume on any node. */
    static Step sleepUntil(Instant instant) {
        return new Sleep(null, java.util.Objects.requireNonNull(instant, "instant"));
    }

    static Step done(String summary) {
        return new Done(summary);
    }

    static Step converge() {
        return new Converge();
    }
}
