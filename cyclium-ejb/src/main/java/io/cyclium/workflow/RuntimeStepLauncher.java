package io.cyclium.workflow;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.execution.RunControl;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.runtime.ConcurrencySlot;
import io.cyclium.runtime.FireRequest;
import io.cyclium.runtime.FireResult;
import io.cyclium.store.Tx;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.util.Optional;

/**
 * Launches a step's episode through this node's actor runtime, like any trigger: mode, slots and
 * queue apply, a trigger-only node stores it for a full node to run, and the dedupe key makes a
 * second launch of the same attempt (any node) a duplicate. The trigger is of type
 * {@link TriggerInfo#WORKFLOW}; the episode row carries the instance and step ids, which is how
 * its {@code EpisodeFinished} finds the step again.
 */
final class RuntimeStepLauncher implements StepLauncher {

    private final ActorHost host;
    private final Tx tx;

    RuntimeStepLauncher(ActorHost host, Tx tx) {
        this.host = host;
        this.tx = tx;
    }

    @Override
    public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
            JsonObject input, String stack, String env) {
        return launch(em, step, instanceId, attempt, dedupeKey, input, stack, env, null);
    }

    @Override
    public Launch launch(EntityManager em, StepDefinition step, String instanceId, int attempt, String dedupeKey,
            JsonObject input, String stack, String env, String traceParent) {
        return launch(em, null, step, instanceId, attempt, dedupeKey, input, stack, env, traceParent);
    }

    @Override
    public Launch launch(EntityManager em, String workflowId, StepDefinition step, String instanceId, int attempt,
            String dedupeKey, JsonObject input, String stack, String env, String traceParent) {
        // em is the engine's JTA transaction: the runtime's insert joins it (Tx#inCallerTransaction)
        // and starts or queues the episode only once it has committed
        Optional<ActorRuntime> rt = host.runtime(step.actor());
        if (rt.isEmpty()) {
            return new Launch(Kind.UNAVAILABLE, null, "actor " + step.actor() + " does not run on this node");
        }
        Optional<ExpectationDefinition> exp = rt.get().definition().expectation(step.expectation());
        if (exp.isEmpty()) {
            return new Launch(Kind.UNAVAILABLE, null, "actor " + step.actor() + " has no expectation " + step.expectation());
        }
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.WORKFLOW, null, dedupeKey, input, null);
        FireResult r = rt.get().fire(FireRequest.of(exp.get(), trigger, dedupeKey, true)
                .in(new ActorRuntime.Scope(stack, env)).forWorkflowStep(instanceId, step.id()).tracedUnder(traceParent)
                .atPriority(step.priority() == 0 ? null : step.priority()).underStepKey(stepKey(workflowId, step, input)));
        return switch (r.kind()) {
            case STARTED -> new Launch(Kind.STARTED, r.episodeId(), null);
            case QUEUED, DEFERRED -> new Launch(Kind.WAITING, r.episodeId(), null);
            case DUPLICATE -> new Launch(Kind.DUPLICATE, null, "attempt already has its episode");
            default -> new Launch(Kind.UNAVAILABLE, null, "not accepted here: " + r.kind());
        };
    }

    /** The step's own concurrency limit for this input; null when it declares none (or its workflow is not named). */
    private static NewEpisode.StepKey stepKey(String workflowId, StepDefinition step, JsonObject input) {
        if (!step.keyed() || workflowId == null) {
            return null;
        }
        return new NewEpisode.StepKey(ConcurrencySlot.ofStep(workflowId, step.id()), step.keyOf(input), step.concurrencyLimit());
    }

    @Override
    public void cancel(String episodeId) {
        // the same two moves as an operator's cancel: the flag for whichever node runs it, and the
        // local task's control when it runs here
        EpisodeStore store = host.store();
        if (store != null) {
            tx.run(em -> store.requestCancel(em, episodeId));
        }
        host.localControl(episodeId).ifPresent(RunControl::requestCancel);
    }
}
