package io.cyclium.execution;

import io.cyclium.episode.Step;

/** The span name of each kind of step (what a trace viewer lists under an episode's run). */
final class StepSpans {

    private StepSpans() {
    }

    static String name(Step step) {
        if (step instanceof Step.Observe o) {
            return "observe " + o.name();
        } else if (step instanceof Step.Checkpoint c) {
            return "checkpoint " + c.phase();
        } else if (step instanceof Step.ProposeOutput p) {
            return "propose output " + p.proposal().type();
        } else if (step instanceof Step.RequestApproval) {
            return "wait approval";
        } else if (step instanceof Step.Wait w) {
            return "wait " + w.reference();
        } else if (step instanceof Step.Sleep) {
            return "sleep";
        } else if (step instanceof Step.Done) {
            return "done";
        }
        return "converge";
    }
}
