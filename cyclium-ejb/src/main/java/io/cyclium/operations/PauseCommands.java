package io.cyclium.operations;

import io.cyclium.audit.PendingAudit;
import io.cyclium.problem.Problem;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.PauseStore;
import io.cyclium.runtime.PauseTarget;
import io.cyclium.runtime.Pauses;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.workflow.Workflows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * Pause and resume of an actor, an expectation or a workflow, cluster-wide: the row in
 * {@code cyclium_pauses} is written with the operator's audit row in one transaction, then this
 * node reads the table again at once; the other nodes see the change on their next pulse (at most
 * one heartbeat interval later). Pausing what is already paused (or resuming what is not) changes
 * nothing and answers the current state. An unknown actor, expectation or workflow is a 404.
 */
@ApplicationScoped
public class PauseCommands {

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Pauses pauses;

    @Inject
    ActorHost host;

    @Inject
    Workflows workflows;

    public PauseView pauseActor(String actorId, boolean paused, String by) {
        mustHaveActor(actorId);
        return set(PauseTarget.actor(actorId), paused, by);
    }

    public PauseView pauseExpectation(String actorId, String expectationId, boolean paused, String by) {
        if (mustHaveActor(actorId).expectation(expectationId).isEmpty()) {
            throw Problem.notFound("actor " + actorId + " has no expectation " + expectationId);
        }
        return set(PauseTarget.expectation(actorId, expectationId), paused, by);
    }

    public PauseView pauseWorkflow(String workflowId, boolean paused, String by) {
        workflows.mustExist(workflowId);
        PauseView view = set(PauseTarget.workflow(workflowId), paused, by);
        if (!paused) {
            // its queued steps start here now; other nodes' reconciles (after each sweep) would too
            workflows.reconcileNow();
        }
        return view;
    }

    /** Every target paused now (as this node last read the table). */
    public List<PauseView> paused() {
        return pauses.paused().stream().map(PauseCommands::view).toList();
    }

    /** How a target stands now on this node's copy. */
    public PauseView view(PauseTarget target) {
        return find(target).map(PauseCommands::view)
                .orElseGet(() -> new PauseView(target.kind().wire(), target.target(), false, null, null));
    }

    private PauseView set(PauseTarget target, boolean paused, String by) {
        tx.run(em -> {
            PauseStore store = new PauseStore(vendor);
            if (!store.set(em, target, paused, by)) {
                PendingAudit.detail("already " + (paused ? "paused" : "running"));
            }
            PendingAudit.recordIn(em);
        });
        pauses.refresh();
        return view(target);
    }

    private Optional<PauseStore.Paused> find(PauseTarget target) {
        return pauses.paused().stream().filter(p -> p.target().equals(target)).findFirst();
    }

    private io.cyclium.actor.ActorDefinition mustHaveActor(String actorId) {
        return host.definition(actorId).orElseThrow(() -> Problem.notFound("no actor " + actorId));
    }

    private static PauseView view(PauseStore.Paused p) {
        return new PauseView(p.target().kind().wire(), p.target().target(), true, p.by(), p.since());
    }
}
