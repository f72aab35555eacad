package io.cyclium.episode;

import io.cyclium.output.OutputProposal;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Objects;

/**
 * The one thing a strategy decides to do next. The runtime executes it, journals it and hands the
 * outcome back through {@link Strategy#onResult}. Before every step the runtime checks the
 * claim, cancel requests, the drain and the budget.
 */
public sealed interface Step permits Step.Observe, Step.Checkpoint, Step.ProposeOutput, Step.RequestApproval,
        Step.Wait, Step.Done, Step.Converge {

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

    /** Block the episode until {@code reference} is resolved from outside. */
    record Wait(String reference) implements Step {
        public Wait {
            Objects.requireNonNull(reference, "reference");
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

    static Step waitFor(String reference) {
        return new Wait(reference);
    }

    static Step done(String summary) {
        return new Done(summary);
    }

    static Step converge() {
        return new Converge();
    }
}
