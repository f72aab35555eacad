package io.cyclium.execution;

import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.StepResult;
import io.cyclium.keys.CanonicalJson;
import jakarta.json.JsonObject;
import java.util.Optional;

/** A resolved approval or wait, turned into the result the strategy sees when the episode resumes. */
final class Resolutions {

    private Resolutions() {
    }

    /**
     * Empty when an approved plan does not match: the plan is re-hashed as it is stored now, so a
     * journal row edited after the approval no longer matches the hash the approver named, and the
     * episode refuses to run it.
     */
    static Optional<StepResult> resultOf(RunSnapshot.Resolution r) {
        if (!r.kind().equals(StepKind.APPROVAL_RESOLVED)) {
            String reference = r.requested().getString("reference", "");
            if (r.requested().getBoolean("sleep", false)) {
                return Optional.of(StepResult.slept(r.resolved().get("due")));
            }
            if (r.resolved().getBoolean("timedOut", false)) {
                return Optional.of(StepResult.waitTimedOut(reference));
            }
            return Optional.of(StepResult.waitResolved(reference, r.resolved().get("value")));
        }
        JsonObject plan = r.requested().getJsonObject("plan");
        String recorded = r.requested().getString("planHash", "");
        String approved = approvedHash(r);
        if (plan == null || !CanonicalJson.hash(plan).equals(recorded) || !recorded.equals(approved)) {
            return Optional.empty();
        }
        return Optional.of(StepResult.approved(plan));
    }

    static String approvedHash(RunSnapshot.Resolution r) {
        return r.resolved().getString("planHash", "");
    }
}
