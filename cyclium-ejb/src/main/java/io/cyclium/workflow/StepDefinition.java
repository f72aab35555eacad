package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import java.util.List;

/**
 * One step of a workflow: an actor's expectation run as an episode once every step in
 * {@code dependsOn} has finished. The episode's payload is the instance's payload plus the
 * summaries of the steps it depends on (see {@link StepInput}). A failed non-critical step does not
 * fail the instance, and its dependents still run; a step with an approval gate waits, the
 * instance blocked, until an operator approves it; a step with a signal gate ({@code signal}, null:
 * none) waits the same way until a signal of that name arrives for its instance (one sent before
 * the step's dependencies are done opens the gate in advance). {@code priority} non-zero is the
 * step episode's place among its actor's queued work; 0 takes its expectation's (which may read
 * the step's input, {@code @Expectation(priorityField)}). Its expectation's concurrency key and
 * cluster-wide limits apply to it like to any of its episodes; besides them, the step may declare
 * a key of its own: at most {@code concurrencyLimit} of its episodes (over all instances of the
 * workflow) run at once per value of {@code concurrencyKey}, a payload path read on the step's
 * input (null: none), enforced cluster-wide on the database like an expectation's key.
 */
public record StepDefinition(String id, String actor, String expectation, List<String> dependsOn, boolean critical,
        boolean approval, FailurePolicy onFailure, RetryPolicy retry, int priority, String signal, String concurrencyKey,
        int concurrencyLimit) {

    /** Without a concurrency key of its own. */
    public StepDefinition(String id, String actor, String expectation, List<String> dependsOn, boolean critical,
            boolean approval, FailurePolicy onFailure, RetryPolicy retry, int priority, String signal) {
        this(id, actor, expectation, dependsOn, critical, approval, onFailure, retry, priority, signal, null, 0);
    }

    /** At its expectation's priority, without a signal gate. */
    public StepDefinition(String id, String actor, String expectation, List<String> dependsOn, boolean critical,
            boolean approval, FailurePolicy onFailure, RetryPolicy retry) {
        this(id, actor, expectation, dependsOn, critical, approval, onFailure, retry, 0, null);
    }

    /** Without a signal gate. */
    public StepDefinition(String id, String actor, String expectation, List<String> dependsOn, boolean critical,
            boolean approval, FailurePolicy onFailure, RetryPolicy retry, int priority) {
        this(id, actor, expectation, dependsOn, critical, approval, onFailure, retry, priority, null);
    }

    /** At its expectation's priority. */
    public StepDefinition(String id, String actor, String expectation, List<String> dependsOn, boolean critical,
            boolean approval, FailurePolicy onFailure, RetryPolicy retry, String signal) {
        this(id, actor, expectation, dependsOn, critical, approval, onFailure, retry, 0, signal);
    }

    public StepDefinition {
        dependsOn = List.copyOf(dependsOn);
        signal = signal == null || signal.isBlank() ? null : signal;
        concurrencyKey = concurrencyKey == null || concurrencyKey.isBlank() ? null : concurrencyKey;
    }

    /** Whether the step has a concurrency key and limit of its own. */
    public boolean keyed() {
        return concurrencyKey != null && concurrencyLimit > 0;
    }

    /** The step's own key of an input ({@value io.cyclium.actor.FlowControl#NO_KEY} when the input has no such field); null when none is declared. */
    public String keyOf(jakarta.json.JsonObject input) {
        return keyed() ? new io.cyclium.actor.FlowControl(concurrencyKey, concurrencyLimit, 0, null).keyOf(input) : null;
    }

    /** Whether the step waits for an approval or a signal before it starts. */
    public boolean gated() {
        return approval || signal != null;
    }
}
