package io.cyclium.bench.actors;

import io.cyclium.workflow.Workflow;
import io.cyclium.workflow.WorkflowStep;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The workflow benchmark's chain: three trivial steps one after the other, each one episode of the
 * plain benchmark actor, so its step episodes per second compare with plain episodes per second.
 */
@ApplicationScoped
@Workflow(id = "bench_chain", subjectKey = "subject", steps = {
        @WorkflowStep(id = "first", actor = "bench_actor", expectation = "trivial"),
        @WorkflowStep(id = "second", actor = "bench_actor", expectation = "trivial", dependsOn = "first"),
        @WorkflowStep(id = "third", actor = "bench_actor", expectation = "trivial", dependsOn = "second")})
public class BenchChain {
}
