package io.cyclium.runtime;

import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.execution.EpisodeLauncher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One actor's execution slots on this node and the FIFO of episodes waiting for one. In memory
 * and per node: what must survive a crash is the episode row (a queued row names this node and
 * its heartbeat vouches for it; the sweep recovers it when nobody does).
 *
 * <p>A slot is taken in two steps for a fresh trigger — {@link #tryReserve} before the insert (so
 * two triggers cannot both see the last free slot), then {@link #startReserved} or
 * {@link #unreserve} once the insert has answered. Restarts ({@link #enqueue}) go through the queue
 * and carry the lease the sweep took, if any; the same episode may arrive twice (the sweep and the
 * poller, a late heartbeat), which {@link #merge} sorts out so that no lease is ever left held by
 * nobody.
 */
final class SlotQueue {

    private static final Logger LOG = Logger.getLogger(SlotQueue.class.getName());

    /** An episode waiting for a slot; {@code recovered} entries are never shed. */
    record Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered, RunSnapshot fresh,
            String expectationId) {
        Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered) {
            this(episodeId, resume, handedClaim, recovered, null, null);
        }

        Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered, String expectationId) {
            this(episodeId, resume, handedClaim, recovered, null, expectationId);
        }
    }

    private enum Merge { NEW, ALREADY_HERE, LEASE_ADOPTED, LEASE_SURPLUS }

    private final int maxConcurrent;
    private final EpisodeLauncher launcher;
    private final String node;

    private final Set<String> active = new LinkedHashSet<>();
    private final Deque<Pending> queue = new ArrayDeque<>();
    private int reserved;
    private boolean accepting = true;
    private final String actorId;
    private volatile PauseCheck pauses = PauseCheck.NONE;

    SlotQueue(int maxConcurrent, EpisodeLauncher launcher, String node) {
        this(maxConcurrent, launcher, node, null);
    }

    SlotQueue(int maxConcurrent, EpisodeLauncher launcher, String node, String actorId) {
        this.maxConcurrent = maxConcurrent;
        this.launcher = launcher;
        this.node = node;
        this.actorId = actorId;
    }

    /** What holds queued entries back (a pause): {@link #drain} skips those, keeping their place. */
    void pausedBy(PauseCheck check) {
        this.pauses = check;
    }

    int maxConcurrent() {
        return maxConcurrent;
    }

    /** Takes a free slot for an episode about to be inserted; false when all are in use. */
    synchronized boolean tryReserve() {
        if (active.size() + reserved < maxConcurrent) {
            reserved++;
            return true;
        }
        return false;
    }

    /**
     * The insert did not happen (duplicate key, database error): the reserved slot is free again,
     * and goes to the next queued episode. A task that ended while this reservation was held found
     * no free slot for the queue ({@link #drain} counts reservations), and with no other task of
     * this actor running here nothing else would ever drain it: the queued episodes would wait,
     * leased and renewed, until the next trigger of this actor reached this node.
     */
    void unreserve() {
        synchronized (this) {
            reserved--;
        }
        drain();
    }

    /** The reserved slot now runs the freshly inserted episode. */
    void startReserved(String episodeId, RunSnapshot fresh) {
        synchronized (this) {
            reserved--;
            active.add(episodeId);
        }
        try {
            launcher.start(episodeId, fresh, false, null, () -> exited(episodeId));
        } catch (RuntimeException e) {
            synchronized (this) {
                active.remove(episodeId);
            }
            throw e;
        }
    }

    /**
     * Queues a freshly inserted episode behind the busy slots; with {@code shedOldest} the oldest
     * queued fresh trigger (never a restart) makes room. Returns the shed episode, or null.
     */
    String enqueueFresh(String episodeId, RunSnapshot fresh, boolean shedOldest) {
        String shed = null;
        synchronized (this) {
            if (shedOldest) {
                for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    // never one a pause holds: paused work waits whole (another expectation's may be shed)
                    if (!p.recovered() && !p.resume() && !held(p)) {
                        it.remove();
                        shed = p.episodeId();
                        break;
                    }
                }
            }
            queue.addLast(new Pending(episodeId, false, null, false, fresh,
                    fresh == null ? null : fresh.ref().expectationId()));
        }
        drain();
        return shed;
    }

    /** A restart, resume or dispatch: queued (never dropped), merged with an entry for the same episode. */
    void enqueue(Pending p) {
        Merge merge;
        synchronized (this) {
            merge = merge(p);
        }
        switch (merge) {
            case NEW -> {
                launcher.markQueued(p.episodeId());
                Merge late;
                synchronized (this) {
                    // the row was marked outside the lock: the same episode may have arrived meanwhile
                    late = merge(p);
                    if (late == Merge.NEW) {
                        queue.addLast(p);
                    }
                }
                if (late == Merge.LEASE_SURPLUS) {
                    releaseSurplus(p);
                }
                drain();
            }
            // the sweep cleared run_node when it claimed the row: say again that it waits here
            case LEASE_ADOPTED -> launcher.markQueued(p.episodeId());
            case LEASE_SURPLUS -> releaseSurplus(p);
            case ALREADY_HERE -> {
            }
        }
    }

    /**
     * The same episode arriving twice on this node (the sweep recovers an episode this node still
     * has queued because its heartbeat came late; the poller and a resume race). A queued entry
     * without a lease takes the handed one over — its task would otherwise find the key busy (held
     * by this very node) and give up, leaving a lease nobody settles. Any other handed lease is
     * surplus: the caller releases it, or the heartbeat would renew it for ever.
     */
    private Merge merge(Pending p) {
        if (active.contains(p.episodeId())) {
            return p.handedClaim() == null ? Merge.ALREADY_HERE : Merge.LEASE_SURPLUS;
        }
        Pending queued = queue.stream().filter(q -> q.episodeId().equals(p.episodeId())).findFirst().orElse(null);
        if (queued == null) {
            return Merge.NEW;
        }
        if (p.handedClaim() == null) {
            return Merge.ALREADY_HERE;
        }
        if (queued.handedClaim() != null) {
            return Merge.LEASE_SURPLUS;
        }
        // rare (a late heartbeat): rebuild the queue with the entry, in its place, now holding the lease
        Pending adopted = new Pending(queued.episodeId(), true, p.handedClaim(), true, null);
        List<Pending> order = new ArrayList<>(queue);
        order.set(order.indexOf(queued), adopted);
        queue.clear();
        queue.addAll(order);
        return Merge.LEASE_ADOPTED;
    }

    private void releaseSurplus(Pending p) {
        launcher.releaseClaim(p.handedClaim(), "episode " + p.episodeId() + " is already queued or running on " + node);
    }

    /** A task ended, whatever the outcome: its slot goes to the next in line. */
    void exited(String episodeId) {
        synchronized (this) {
            active.remove(episodeId);
        }
        drain();
    }

    /**
     * Starts queued episodes while slots are free, in queue order, passing over the entries a pause
     * holds (they keep their place and start on a later drain: the next exit, or the resume); a
     * start the executor refuses is left to recovery.
     */
    void drain() {
        while (true) {
            Pending next;
            synchronized (this) {
                if (!accepting || queue.isEmpty() || active.size() + reserved >= maxConcurrent) {
                    return;
                }
                next = firstNotHeld();
                if (next == null) {
                    return;
                }
                active.add(next.episodeId());
            }
            try {
                launcher.start(next.episodeId(), next.fresh(), next.resume(), next.handedClaim(), () -> exited(next.episodeId()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Could not start queued episode " + next.episodeId() + "; recovery will pick it up", e);
                synchronized (this) {
                    active.remove(next.episodeId());
                }
                if (next.handedClaim() != null) {
                    launcher.releaseClaim(next.handedClaim(), "episode " + next.episodeId() + " could not start");
                }
            }
        }
    }

    /** Removes and returns the first queued entry no pause holds; null when every one is held. Under the lock. */
    private Pending firstNotHeld() {
        PauseCheck check = pauses;
        if (actorId != null && check.holds(actorId, null)) {
            return null; // the whole actor is paused: no walk through a queue that may be long
        }
        for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (actorId == null || !check.holds(actorId, p.expectationId())) {
                it.remove();
                return p;
            }
        }
        return null;
    }

    private boolean held(Pending p) {
        return actorId != null && pauses.holds(actorId, p.expectationId());
    }

    /** Entries waiting for a slot that a pause holds back now. */
    synchronized int heldCount() {
        PauseCheck check = pauses;
        return actorId == null ? 0 : (int) queue.stream().filter(p -> check.holds(actorId, p.expectationId())).count();
    }

    /** The episodes this queue holds now: running in its slots or waiting for one (the heartbeat's queue audit). */
    synchronized void heldInto(Set<String> into) {
        into.addAll(active);
        queue.forEach(p -> into.add(p.episodeId()));
    }

    /** The leases handed to episodes still waiting here (the heartbeat's audit). */
    synchronized List<HeldClaim> queuedClaims() {
        return queue.stream().map(Pending::handedClaim).filter(Objects::nonNull).toList();
    }

    /** Removes an episode that has not started (a cancel). */
    synchronized boolean dequeue(String episodeId) {
        return queue.removeIf(p -> p.episodeId().equals(episodeId));
    }

    /** No more starts from the queue (drain, undeploy); running tasks are the drainer's business. */
    synchronized void stop() {
        accepting = false;
    }

    synchronized int activeCount() {
        return active.size();
    }

    synchronized int queuedCount() {
        return queue.size();
    }
}
