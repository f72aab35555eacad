package io.cyclium.recovery;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The heartbeat's check that every row this node vouches for is really held here. A row marked
 * queued on this node ({@code run_node} = this node, {@code queued_at} set) is kept from the sweep
 * by this node's {@code last_seen}; that is only right while a task, a slot or a queue of this node
 * holds the episode. A task that died in a database outage, or a start the executor refused, left
 * such rows behind with nobody holding them — stranded for as long as the node lived.
 *
 * <p>Each tick reads the node's queued rows older than {@code graceSeconds} on the database clock
 * (a row committed a moment ago may not have reached its queue yet) and, for each one no piece of
 * the node holds, clears the mark with a guarded UPDATE (still queued on this node; 0 rows: it moved
 * on meanwhile). The row is then an ordinary quiet running row, which the sweep recovers.
 *
 * <p>The held set is taken <em>after</em> the read: an episode that leaves its queue for a slot in
 * between is held either way, and one whose task finished in between has no mark left to clear.
 */
final class QueueAudit {

    private static final Logger LOG = Logger.getLogger(QueueAudit.class.getName());
    /** At most this many rows per tick: a stranded row is among the oldest, and the next tick goes on. */
    static final int LIMIT = 500;

    private final String node;
    private final Tx tx;
    private final RecoveryStore recovery;
    private final EpisodeStore episodes;
    private final LocalActors actors;
    private final Telemetry telemetry;

    QueueAudit(String node, Tx tx, DatabaseVendor vendor, LocalActors actors, Telemetry telemetry) {
        this.node = node;
        this.tx = tx;
        this.recovery = new RecoveryStore(vendor);
        this.episodes = new EpisodeStore(vendor);
        this.actors = actors;
        this.telemetry = telemetry;
    }

    /** One audit; returns the number of rows this node stopped vouching for. */
    int run(long graceSeconds) {
        List<String> marked = tx.inNewTransaction(em -> recovery.queuedOn(em, node, graceSeconds, LIMIT));
        if (marked.isEmpty()) {
            return 0;
        }
        Set<String> held = actors.episodesHeld();
        int released = 0;
        for (String id : marked) {
            if (held.contains(id)) {
                continue;
            }
            int n = tx.inNewTransaction(em -> episodes.unmarkQueued(em, id, node));
            if (n == 1) {
                released++;
                LOG.warning(() -> "Episode " + id + " was marked queued on " + node + " but no task, slot or queue here"
                        + " holds it (its task ended in a failure, or its start was refused): no longer vouched for;"
                        + " the recovery sweep takes it");
            }
        }
        if (released > 0) {
            telemetry.count("queue_audit_released", released);
        }
        return released;
    }
}
