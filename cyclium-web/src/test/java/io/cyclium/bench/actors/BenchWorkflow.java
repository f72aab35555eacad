package io.cyclium.bench.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The workflow benchmark's DAG: six trivial steps, fan-out and fan-in (start → a, b, c → join →
 * end), so what is measured is the engine's own cost per step: advancing, launching, recording.
 */
@ApplicationScoped
@Workflow(id = "bench_dag", subjectKey = "subject", steps = {
        @WorkflowStep(id = "start", actor = "bench_actor", expectation = "trivial"),
        @WorkflowStep(id = "a", actor = "bench_actor", expectation = "trivial", dependsOn = "start"),
        @WorkflowStep(id = "b", actor = "bench_actor", expectation = "trivial", dependsOn = "start"),
        @WorkflowStep(id = "c", actor = "bench_actor", expectation = "trivial", dependsOn = "start"),
        @WorkflowStep(id = "join", actor = "bench_actor", expectation = "trivial", dependsOn = {"a", "b", "c"}),
        @WorkflowStep(id = "end", actor = "bench_actor", expectation = "trivial", dependsOn = "join")})
public class BenchWorkflow {
}
