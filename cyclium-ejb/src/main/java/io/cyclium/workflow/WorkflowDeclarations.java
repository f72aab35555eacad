package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import java.util.ArrayList;
import java.util.List;

/** Reads a {@link Workflow} annotation into a definition (unchecked: {@link WorkflowValidation} checks it). */
public final class WorkflowDeclarations {

    private WorkflowDeclarations() {
    }

    public static WorkflowDefinition read(Class<?> type) {
        Workflow w = type.getAnnotation(Workflow.class);
        if (w == null) {
            throw new IllegalArgumentException(type.getName() + " has no @Workflow");
        }
        List<WorkflowTrigger> triggers = new ArrayList<>();
        triggers.add(new WorkflowTrigger(WorkflowTrigger.MANUAL, null, List.of(), null));
        for (String event : w.events()) {
            triggers.add(new WorkflowTrigger(WorkflowTrigger.EVENT, event, List.of(w.eventFilter()), null));
        }
        if (!w.every().isBlank()) {
            triggers.add(new WorkflowTrigger(WorkflowTrigger.SCHEDULE, null, List.of(), w.every()));
        }
        List<StepDefinition> steps = new ArrayList<>();
        for (WorkflowStep s : w.steps()) {
            steps.add(new StepDefinition(s.id(), s.actor(), s.expectation(), List.of(s.dependsOn()), s.critical(),
                    s.approval(), s.onFailure(), RetryPolicy.of(s.maxAttempts(), s.initialDelayMs(), s.multiplier(),
                            s.maxDelayMs(), s.jitter(), s.nonRetryable()), s.priority(), s.signal(), s.concurrencyKey(),
                    s.concurrencyLimit()));
        }
        return new WorkflowDefinition(w.id(), w.subjectKey(), triggers, steps);
    }
}
