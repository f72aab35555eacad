package io.cyclium.recovery;

import io.cyclium.episode.WaitResolution;
import io.cyclium.episode.WaitStore;
import io.cyclium.store.Jsons;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wakes due sleepers and times out due waits, on any node: when the node's
 * {@link io.cyclium.episode.WaitAlarm} rings (a due time this node stored, or heard from its own
 * last pass or the workflow pulse), and first in every recovery sweep as the backstop. So an idle
 * node pays one grouped read of the wait table per sweep — which also feeds the
 * {@code episode_sleeping} and {@code episode_waiting} gauges and tells the alarm when the next one
 * is due — and reads the due rows only when some are due. Per due row: one
 * transaction whose first statement is the wait row's guarded DELETE ({@link WaitStore#releaseDue}:
 * 0 rows, another node woke it or a signal resolved it first — skipped), then the episode back to
 * running ({@code resume_due}) and the {@code wait_resolved} row saying why (a sleep's end, a wait's
 * timeout). After the commit it is resumed here when its actor runs here; otherwise the next sweep
 * of a node that runs it resumes it at once. A node that dies between the commit and the resume
 * leaves a resume_due row that recovery resumes after the usual quiet time: nothing is lost, and the
 * guard makes sure nothing is resumed twice.
 */
public class DueWaits {

    private static final Logger LOG = Logger.getLogger(DueWaits.class.getName());
    static final int BATCH = 200;

    private final Tx tx;
    private final WaitStore waits;
    private final WaitResolution resolution;
    private final String node;
    private final LocalActors actors;
    private final Telemetry telemetry;
    /** Sleeping and waiting episodes of this node's env as the last pass counted them (the gauges read these). */
    private final java.util.concurrent.atomic.AtomicLong sleeping = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong waiting = new java.util.concurrent.atomic.AtomicLong();

    public DueWaits(Tx tx, WaitStore waits, WaitResolution resolution, String node, LocalActors actors, Telemetry telemetry) {
        this.tx = tx;
        this.waits = waits;
        this.resolution = resolution;
        this.node = node;
        this.actors = actors;
        this.telemetry = telemetry;
        telemetry.gauge("episode_sleeping", sleeping::get);
        telemetry.gauge("episode_awaiting", waiting::get);
    }

    /**
     * The sweep's pass over the due rows of {@code env}, after the census (the gauges, and the next
     * due time for the alarm); returns how many this node woke or timed out.
     */
    public int wake(String env) {
        if (!actors.sweeps()) {
            // a draining or trigger-only node leaves them to a full node: nothing is lost, they stay due
            return 0;
        }
        return resolve(tx.inNewTransaction(em -> {
            WaitStore.Census census = waits.census(em, env);
            sleeping.set(census.sleeping());
            waiting.set(census.waiting());
            // the next one ahead: this node runs the pass again then (rows due now are this pass's)
            waits.alarm().wake(census.nextDueIn());
            return census.due() == 0 ? List.<WaitStore.WaitRow>of() : waits.due(em, env, BATCH);
        }));
    }

    /**
     * The alarm's pass: the due rows and the next due time, two reads of the due-time index and no
     * census (which counts the whole table: fine once per sweep, too much for every ring while many sleep).
     */
    public int wakeRung(String env) {
        if (!actors.sweeps()) {
            return 0;
        }
        return resolve(tx.inNewTransaction(em -> {
            waits.alarm().wake(waits.nextDueIn(em, env));
            return waits.due(em, env, BATCH);
        }));
    }

    private int resolve(List<WaitStore.WaitRow> read) {
        List<WaitStore.WaitRow> due = new ArrayList<>(read);
        if (due.size() >= BATCH) {
            // a full batch may leave more due: the next tick takes them, not the next sweep
            waits.alarm().wake(java.time.Duration.ZERO);
        }
        // nodes woken by the same interval should not all race for the same first row
        Collections.shuffle(due);
        int woke = 0;
        for (WaitStore.WaitRow w : due) {
            try {
                boolean here = actors.runs(w.actorId());
                boolean won = tx.inNewTransaction(em -> resolution.resolve(em, w.episodeId(), WaitResolution.Guard.DUE,
                        w.name(), detail(w), node, here ? node : null));
                if (!won) {
                    telemetry.count("wait_due", "outcome", "taken_elsewhere");
                    continue;
                }
                woke++;
                telemetry.count("wait_due", "outcome", w.sleep() ? "slept" : "timed_out");
                if (here && !actors.resume(w.actorId(), w.expectationId(), w.episodeId())) {
                    LOG.info(() -> "Episode " + w.episodeId() + " is due, but its actor " + w.actorId() + " left " + node
                            + "; recovery resumes it");
                }
            } catch (RuntimeException e) {
                telemetry.count("wait_due", "outcome", "error");
                LOG.log(Level.WARNING, "Waking episode " + w.episodeId() + " (" + w.actorId() + "/" + w.expectationId()
                        + ", " + w.kind() + " " + w.name() + " due " + w.wakeAt() + ") failed on " + node
                        + "; the next pass tries again", e);
            }
        }
        return woke;
    }

    /** The {@code wait_resolved} row's detail: a sleep's end or a wait's timeout, and when it was due. */
    static JsonObject detail(WaitStore.WaitRow w) {
        var b = Jsons.object().add("reference", w.name()).add("due", String.valueOf(w.wakeAt())).add("by", "timer");
        return w.sleep() ? b.add("sleep", true).build() : b.add("timedOut", true).build();
    }
}
