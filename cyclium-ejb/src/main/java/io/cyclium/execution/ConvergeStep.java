package io.cyclium.execution;

import io.cyclium.telemetry.SpanAttributes;
import io.cyclium.store.Jsons;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.episode.StepKind;
import io.cyclium.finding.FindingAction;
import io.cyclium.output.OutputProposal;
import io.cyclium.telemetry.TraceSpan;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The converge step of one episode: the fence check, then findings and outputs, each journaled,
 * then the terminal status they add up to. Only this step has effects outside the episode's own
 * rows, so only it needs the fence: a lease taken over since we acquired it (even by us again,
 * A → B → A) means another run owns the effects now, and nothing here may happen twice.
 */
final class ConvergeStep {

    private static final Logger LOG = Logger.getLogger(ConvergeStep.class.getName());

    /** How the episode ends after converging. */
    record Ending(EpisodeStatus status, String summary, String errorClass, JsonObject detail) {
    }

    private final TaskEnvironment env;
    private final EpisodeWrites writes;
    private final String episodeId;

    ConvergeStep(TaskEnvironment env, EpisodeWrites writes, String episodeId) {
        this.env = env;
        this.writes = writes;
        this.episodeId = episodeId;
    }

    /** Empty when the lease is no longer ours at its fence: nothing was applied or delivered. */
    Optional<Ending> apply(RunSnapshot s, ExpectationDefinition exp, HeldClaim claim, Convergence conv,
            List<OutputProposal> proposed, boolean resumedRun) {
        if (!env.claims().stillOwns(claim)) {
            LOG.info(() -> "Episode " + episodeId + " no longer owns " + claim + " at converge: delivering nothing");
            env.telemetry().count("episode_claim_lost", "actor", s.ref().actorId());
            return Optional.empty();
        }
        int findingFailures = 0;
        for (FindingAction action : conv.findings()) {
            ConvergeEffects.Effect effect;
            try {
                effect = env.effects().applyFinding(action, s.ref(), exp.findingTtl());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Episode " + episodeId + ": finding " + action.findingKey() + " failed", e);
                effect = new ConvergeEffects.Effect(false, null, action.findingKey(),
                        Jsons.object().add("error", String.valueOf(e)).build());
            }
            if (!effect.ok()) {
                findingFailures++;
            }
            if (effect.journalKind() != null) {
                writes.journal(effect.journalKind(), effect.detail(), effect.ok() ? null : "finding_failed", null, null);
            }
        }
        List<OutputProposal> outputs = new ArrayList<>(proposed);
        outputs.addAll(conv.outputs());
        int outputFailures = 0;
        for (OutputProposal p : outputs) {
            ConvergeEffects.Effect effect;
            TraceSpan span = writes.trace() == TraceSpan.NONE ? TraceSpan.NONE
                    : writes.trace().child("cyclium output " + p.type(), SpanAttributes.OUTPUT_TYPE, p.type());
            try {
                effect = env.effects().deliver(p, s.ref(), resumedRun);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Episode " + episodeId + ": output " + p.type() + " failed", e);
                effect = new ConvergeEffects.Effect(false, StepKind.OUTPUT_FAILED, null,
                        Jsons.object().add("type", p.type()).add("error", String.valueOf(e)).build());
            }
            if (!effect.ok()) {
                span.failed("output_failed");
            }
            span.close();
            if (!effect.ok()) {
                outputFailures++;
            }
            if (effect.journalKind() != null) {
                writes.journal(effect.journalKind(), effect.detail(), effect.ok() ? null : "output_failed", effect.key(), null);
            }
        }
        EpisodeStatus status;
        String errorClass = null;
        if (!outputs.isEmpty() && outputFailures == outputs.size()) {
            status = EpisodeStatus.FAILED;
            errorClass = "all_outputs_failed";
        } else if (outputFailures > 0 || findingFailures > 0) {
            status = EpisodeStatus.PARTIALLY_FAILED;
            errorClass = outputFailures > 0 ? "some_outputs_failed" : "finding_failed";
        } else {
            status = EpisodeStatus.DONE;
        }
        JsonObject detail = Jsons.object()
                .add("summary", conv.summary() == null ? "" : conv.summary())
                .add("findings", conv.findings().size())
                .add("outputs", outputs.size())
                .add("outputFailures", outputFailures)
                .add("findingFailures", findingFailures)
                .build();
        return Optional.of(new Ending(status, conv.summary(), errorClass, detail));
    }
}
