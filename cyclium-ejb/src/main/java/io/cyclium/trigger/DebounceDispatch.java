package io.cyclium.trigger;

import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.episode.DebouncedTriggerStore;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.runtime.FireResult;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One pass over the debounced triggers whose window has closed (the {@link TriggerPoller} EJB runs
 * it on its timer, on every node that is not disabled): each due row of this node's env whose actor
 * fires here is taken and fired in one transaction. The take is a DELETE guarded on the version this
 * pass read: of any number of nodes that read the row due, exactly one deletes it, and an event
 * that replaced the row meanwhile (a newer version, a later fire time) makes it 0 rows too. The
 * episode is stored in the same transaction, so a failure anywhere leaves the row for the next pass
 * (here or on another node), and a node stopped or killed after the event was answered loses
 * nothing. A fired trigger meets the actor's rules as any fire does (mode, breaker, slots, overflow).
 */
public class DebounceDispatch {

    private static final Logger LOG = Logger.getLogger(DebounceDispatch.class.getName());

    private final String node;
    private final String env;
    private final int batch;
    private final Tx tx;
    private final DebouncedTriggerStore store;
    private final Supplier<Map<String, ActorRuntime>> firingHere;
    private final Telemetry telemetry;

    /**
     * @param firingHere the runtimes, by actor id, of the actors whose triggers this node may fire
     *                   (it runs them and is not disabled for them); other actors' rows are left to
     *                   other nodes, and not even read
     */
    public DebounceDispatch(String node, String env, int batch, Tx tx, DebouncedTriggerStore store,
            Supplier<Map<String, ActorRuntime>> firingHere, Telemetry telemetry) {
        this.node = node;
        this.env = env;
        this.batch = batch;
        this.tx = tx;
        this.store = store;
        this.firingHere = firingHere;
        this.telemetry = telemetry;
    }

    /**
     * On a node none of whose expectations debounces, one pass in this many reads the table: a row
     * an earlier deployment left (its expectation debounced then) still fires, within a minute at
     * the default 5 s poll, while an idle node does not read an empty table every pass.
     */
    static final int LEFTOVER_EVERY = 12;
    /** Passes since the last read of leftovers (the timer's passes never overlap: a singleton's write lock). */
    private int passesWithoutDebounce;

    /** One pass; returns how many rows this node fired. A row that fails is logged, counted and left for the next pass. */
    public int poll() {
        Map<String, ActorRuntime> here = firingHere.get();
        if (here.isEmpty()) {
            return 0;
        }
        if (here.values().stream().noneMatch(DebounceDispatch::debounces) && passesWithoutDebounce++ % LEFTOVER_EVERY != 0) {
            return 0;
        }
        List<DebouncedTrigger> due = tx.inNewTransaction(em -> store.due(em, env, here.keySet(), batch));
        int fired = 0;
        for (DebouncedTrigger row : due) {
            Optional<ActorRuntime> runtime = Optional.ofNullable(here.get(row.actorId()));
            if (runtime.isEmpty()) {
                continue; // read for an actor of ours a moment ago: not any more
            }
            boolean[] mine = new boolean[1];
            BackgroundPass.run("debounce_fire", new String[] {"actor", row.actorId(), "expectation", row.expectationId()},
                    LOG, telemetry, () -> "Debounced trigger of " + row.actorId() + "/" + row.expectationId() + " (key "
                            + row.dedupeKey() + ") could not fire on " + node + "; it stays stored and the next pass, here"
                            + " or on another node, fires it",
                    () -> mine[0] = fire(runtime.get(), row));
            if (mine[0]) {
                fired++;
            }
        }
        return fired;
    }

    /** Whether an expectation of the actor has a debounce window (its triggers are stored, then fired here). */
    private static boolean debounces(ActorRuntime runtime) {
        return runtime.definition().expectations().stream().anyMatch(e -> e.debounce() != null && !e.debounce().isZero());
    }

    private boolean fire(ActorRuntime runtime, DebouncedTrigger row) {
        return tx.inNewTransaction(em -> {
            if (store.take(em, row) == 0) {
                LOG.fine(() -> "Debounced trigger " + row.id() + " was fired by another node, or replaced by a newer"
                        + " event, after this pass read it");
                return false;
            }
            Optional<FireResult> result = runtime.fireDebounced(row);
            telemetry.count("debounce_fired", "actor", row.actorId(), "expectation", row.expectationId(), "result",
                    result.map(r -> r.kind().name().toLowerCase(Locale.ROOT)).orElse("unknown_expectation"));
            return true;
        });
    }
}
