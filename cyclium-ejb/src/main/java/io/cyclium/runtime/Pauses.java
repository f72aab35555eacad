package io.cyclium.runtime;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * This node's copy of {@code cyclium_pauses}. The table is the truth; this copy is refreshed when
 * the fingerprint the workflow pulse carries ({@link PauseStore#FINGERPRINT}, a scalar in a
 * statement every node sends anyway) moves, at start, and right after a pause or resume made
 * through this node. So a node sees another node's change within one pulse, which runs at least
 * once per heartbeat interval, and an idle node sends no statement of its own for it.
 *
 * <p>What a pause holds: episodes not started yet wait in their actor's queue (stored, marked
 * queued, vouched for by the heartbeat like any queued row); a workflow's ready steps stay queued
 * without an episode. Running episodes are never interrupted. On a resume every listener (the
 * actor runtimes' queues, see {@link #onChange}) is told, so waiting work starts without a restart.
 */
@ApplicationScoped
public class Pauses implements PauseCheck {

    private static final Logger LOG = Logger.getLogger(Pauses.class.getName());

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Telemetry telemetry;

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    // replaced whole on each refresh: readers on any thread see one consistent snapshot
    private volatile PauseStore.Snapshot snapshot = new PauseStore.Snapshot(List.of(), Long.MIN_VALUE);
    private volatile Set<PauseTarget> paused = Set.of();

    @PostConstruct
    void gauges() {
        for (PauseTarget.Kind kind : PauseTarget.Kind.values()) {
            telemetry.gauge("paused", () -> paused.stream().filter(t -> t.kind() == kind).count(), "kind", kind.wire());
        }
    }

    /** Told after every refresh that changed what is paused (a resume lets waiting work start). */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** The pulse read {@code fingerprint}: reads the table again only when it moved. */
    public void heard(long fingerprint) {
        if (fingerprint != snapshot.fingerprint()) {
            refresh();
        }
    }

    /** Reads the table now (start, and after a change made through this node). */
    public void refresh() {
        PauseStore.Snapshot read = tx.inNewTransaction(em -> new PauseStore(vendor).read(em));
        Set<PauseTarget> now = new HashSet<>();
        read.paused().forEach(p -> now.add(p.target()));
        boolean changed;
        synchronized (this) {
            changed = !now.equals(paused);
            snapshot = read;
            paused = Set.copyOf(now);
        }
        if (changed) {
            LOG.info(() -> "Paused now: " + (now.isEmpty() ? "nothing" : now.stream().map(t -> t.kind().wire() + " "
                    + t.target()).sorted().toList()));
            listeners.forEach(Runnable::run);
        }
    }

    @Override
    public boolean holds(String actorId, String expectationId) {
        Set<PauseTarget> p = paused;
        return !p.isEmpty() && (p.contains(PauseTarget.actor(actorId))
                || expectationId != null && p.contains(PauseTarget.expectation(actorId, expectationId)));
    }

    public boolean workflowPaused(String workflowId) {
        Set<PauseTarget> p = paused;
        return !p.isEmpty() && p.contains(PauseTarget.workflow(workflowId));
    }

    public boolean isPaused(PauseTarget target) {
        return paused.contains(target);
    }

    /** Every paused target with who paused it and when, as last read. */
    public List<PauseStore.Paused> paused() {
        return snapshot.paused();
    }
}
