package io.cyclium.episode;

import io.cyclium.finding.FindingAction;
import io.cyclium.output.OutputProposal;
import java.util.List;

/** What an episode concludes: findings to raise/update/clear, outputs to deliver, a summary. */
public record Convergence(List<FindingAction> findings, List<OutputProposal> outputs, String summary) {

    public Convergence {
        findings = findings == null ? List.of() : List.copyOf(findings);
        outputs = outputs == null ? List.of() : List.copyOf(outputs);
    }

    public static Convergence of(String summary) {
        return new Convergence(List.of(), List.of(), summary);
    }
}
