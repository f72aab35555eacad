package io.cyclium.workflow;

import io.cyclium.actor.ActorDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Steps that instances in flight still have to run but whose actor or expectation, as named by the
 * definition version the instance runs, this node does not deploy: what a deploy that removed or
 * renamed an actor or expectation left behind. A node cannot launch such a step (the launch is
 * refused and the step stays queued until a node that deploys the code reconciles it), so the
 * deploy says so, naming the instances and steps, instead of leaving them to wait unseen.
 */
final class UndeployedSteps {

    private UndeployedSteps() {
    }

    /** One line per step: instance, workflow and version, step, and what is missing. */
    static List<String> of(List<WorkflowQueries.StepToRun> steps,
            BiFunction<String, Long, Optional<WorkflowDefinition>> versions, Collection<ActorDefinition> actors) {
        Map<String, ActorDefinition> byId = new HashMap<>();
        actors.forEach(a -> byId.put(a.id(), a));
        List<String> out = new ArrayList<>();
        for (WorkflowQueries.StepToRun s : steps) {
            Optional<StepDefinition> sd = versions.apply(s.workflowId(), s.definitionVersion())
                    .flatMap(d -> d.step(s.stepId()));
            sd.flatMap(d -> WorkflowValidation.missingCode(d, byId)).ifPresent(issue -> out.add("instance "
                    + s.instanceId() + " (" + s.workflowId() + " version " + s.definitionVersion() + "): " + issue.message()));
        }
        return out;
    }
}
