package io.cyclium.execution;

import io.cyclium.store.Jsons;
import io.cyclium.episode.StepKind;
import io.cyclium.keys.EpisodeRef;

import io.cyclium.finding.FindingAction;
import io.cyclium.finding.FindingOutcome;
import io.cyclium.finding.Findings;
import io.cyclium.output.OutputOutcome;
import io.cyclium.output.OutputProposal;
import io.cyclium.output.Outputs;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;

/** Converge effects in the container: findings through {@link Findings}, outputs through {@link Outputs}. */
@ApplicationScoped
public class ContainerConvergeEffects implements ConvergeEffects {

    @Inject
    Findings findings;

    @Inject
    Outputs outputs;

    @Override
    public Effect applyFinding(FindingAction action, EpisodeRef episode, Duration defaultTtl) {
        return ConvergeEffectsMapping.finding(findings.apply(action, episode, defaultTtl));
    }

    @Override
    public Effect deliver(OutputProposal proposal, EpisodeRef episode, boolean resumedRun) {
        return ConvergeEffectsMapping.output(proposal, outputs.route(proposal, episode, resumedRun));
    }

    /** Outcome → journal entry; shared with tests that wire the plain classes. */
    public static final class ConvergeEffectsMapping {
        private ConvergeEffectsMapping() {
        }

        public static Effect finding(FindingOutcome o) {
            String kind = switch (o.kind()) {
                case RAISED -> StepKind.FINDING_RAISED;
                case UPDATED -> StepKind.FINDING_UPDATED;
                case CLEARED -> StepKind.FINDING_CLEARED;
                case NOOP, NOT_FOUND -> null;
            };
            JsonObjectBuilder d = Jsons.object().add("findingKey", o.findingKey()).add("outcome", o.kind().name().toLowerCase());
            if (o.findingId() != null) {
                d.add("findingId", o.findingId());
            }
            if (o.env() != null) {
                d.add("env", o.env());
            }
            return new Effect(true, kind, o.findingKey(), d.build());
        }

        public static Effect output(OutputProposal p, OutputOutcome o) {
            JsonObjectBuilder d = Jsons.object().add("type", p.type()).add("dedupeKey", o.dedupeKey())
                    .add("status", String.valueOf(o.status()));
            if (o.outputId() != null) {
                d.add("outputId", o.outputId());
            }
            return switch (o.kind()) {
                case DELIVERED -> new Effect(true, StepKind.OUTPUT_DELIVERED, o.dedupeKey(), d.build());
                // Someone already holds this key: the side effect happened (or is happening) once, elsewhere.
                case DUPLICATE -> new Effect(true, StepKind.OUTPUT_DELIVERED, o.dedupeKey(), d.add("duplicate", true).build());
                case FAILED -> new Effect(false, StepKind.OUTPUT_FAILED, o.dedupeKey(),
                        d.add("error", String.valueOf(o.error())).build());
            };
        }
    }
}
