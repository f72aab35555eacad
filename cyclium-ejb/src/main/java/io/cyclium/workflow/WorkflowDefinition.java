package io.cyclium.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A validated workflow: its id, what starts it, the payload field naming its subject (one in-flight
 * instance per subject; empty = one per workflow), and its steps in declaration order. Nothing
 * uses one that {@link WorkflowValidation} has not passed, so its step graph is acyclic and every
 * name in it resolves. {@code version} is the stored version of the document it was read from (an
 * instance started with it records it and runs it to the end); 0 for one not read from the
 * store (a declaration, a parsed request body), which is not part of the document.
 */
public record WorkflowDefinition(String id, String subjectKey, List<WorkflowTrigger> triggers,
        List<StepDefinition> steps, long version) {

    public WorkflowDefinition {
        triggers = List.copyOf(triggers);
        steps = List.copyOf(steps);
    }

    public WorkflowDefinition(String id, String subjectKey, List<WorkflowTrigger> triggers, List<StepDefinition> steps) {
        this(id, subjectKey, triggers, steps, 0);
    }

    /** This definition as stored version {@code version} of its document. */
    public WorkflowDefinition withVersion(long version) {
        return version == this.version ? this : new WorkflowDefinition(id, subjectKey, triggers, steps, version);
    }

    public Optional<StepDefinition> step(String stepId) {
        return steps.stream().filter(s -> s.id().equals(stepId)).findFirst();
    }

    /**
     * The steps an instance schedules: every step for the whole DAG ({@code target} null), or the
     * target step and exactly its transitive dependencies, in declaration order.
     */
    public List<StepDefinition> scheduledFor(String target) {
        if (target == null) {
            return steps;
        }
        Map<String, StepDefinition> byId = new LinkedHashMap<>();
        steps.forEach(s -> byId.put(s.id(), s));
        if (!byId.containsKey(target)) {
            throw new IllegalArgumentException("workflow " + id + " has no step \"" + target + "\"");
        }
        Set<String> needed = new LinkedHashSet<>();
        List<String> todo = new ArrayList<>(List.of(target));
        while (!todo.isEmpty()) {
            String next = todo.remove(todo.size() - 1);
            if (needed.add(next)) {
                todo.addAll(byId.get(next).dependsOn());
            }
        }
        return steps.stream().filter(s -> needed.contains(s.id())).toList();
    }

    /** Whether an event of this type with this payload starts an instance. */
    public boolean startedBy(String eventType, jakarta.json.JsonObject payload) {
        return triggers.stream().anyMatch(t -> WorkflowTrigger.EVENT.equals(t.type()) && t.event().equals(eventType)
                && io.cyclium.actor.PayloadFilter.parse(t.filter().toArray(String[]::new)).matches(payload));
    }
}
