package io.cyclium.runtime;

import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.RunSnapshot;
import io.cyclium.execution.EpisodeLauncher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.Executor;
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

    /**
     * An episode waiting for a slot; {@code recovered} entries are never shed. {@code limits} are
     * the cluster-wide limits it must take a slot of before it starts (empty: none);
     * {@code priority}, {@code since} (the clock's millis at enqueue) and {@code seq} order it
     * among the others when the actor is flow-controlled.
     */
    record Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered, RunSnapshot fresh,
            String expectationId, List<ConcurrencySlot> limits, List<RateLimit> rates, int priority, long since, long seq) {
        Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered) {
            this(episodeId, resume, handedClaim, recovered, null, null);
        }

        Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered, String expectationId) {
            this(episodeId, resume, handedClaim, recovered, null, expectationId);
        }

        Pending(String episodeId, boolean resume, HeldClaim handedClaim, boolean recovered, RunSnapshot fresh,
                String expectationId) {
            this(episodeId, resume, handedClaim, recovered, fresh, expectationId, List.of(), List.of(), 0, 0, 0);
        }

        Pending {
            limits = limits == null ? List.of() : List.copyOf(limits);
            rates = rates == null ? List.of() : List.copyOf(rates);
        }

        /** The same entry waiting for {@code limits} and {@code rates} at {@code priority}. */
        Pending limitedBy(List<ConcurrencySlot> limits, List<RateLimit> rates, int priority) {
            return new Pending(episodeId, resume, handedClaim, recovered, fresh, expectationId, limits, rates, priority, since,
                    seq);
        }

        Pending stamped(long since, long seq) {
            return new Pending(episodeId, resume, handedClaim, recovered, fresh, expectationId, limits, rates, priority, since,
                    seq);
        }

        /** The same entry, now holding {@code claim} (merged with a restart of it). */
        Pending adopting(HeldClaim claim) {
            return new Pending(episodeId, true, claim, true, null, expectationId, limits, rates, priority, since, seq);
        }

        /** Whether it must be admitted on the database before it starts (a concurrency or rate limit). */
        boolean limited() {
            return !limits.isEmpty() || !rates.isEmpty();
        }

        /** The names of its limits, as a pass remembers the ones it found full. */
        List<String> limitNames() {
            List<String> names = new ArrayList<>(limits.size() + rates.size());
            limits.forEach(l -> names.add(l.scope() + "\n" + l.key()));
            names.addAll(rateNames());
            return names;
        }

        List<String> rateNames() {
            return rates.stream().map(r -> "rate\n" + r.scope() + "\n" + r.key()).toList();
        }

        /**
         * The group fairness turns over: its expectation's key (a concurrency limit's, else a
         * per-key rate's), else one group for the whole actor.
         */
        String group() {
            for (ConcurrencySlot l : limits) {
                if (!ConcurrencySlot.WHOLE_ACTOR.equals(l.key())) {
                    return l.scope() + "\n" + l.key();
                }
            }
            for (RateLimit r : rates) {
                if (r.perKey()) {
                    return r.scope() + "\n" + r.key();
                }
            }
            return "";
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

    // ---- flow control (an actor with a cluster-wide limit or priorities; untouched otherwise) ----
    private boolean fair;
    private ConcurrencyGate gate = ConcurrencyGate.NONE;
    private Clock clock = Clock.systemUTC();
    private long agingMillis;
    private Executor later = Runnable::run;
    private boolean drainPending;
    /** Entries out of the queue while their slot is being taken on the database (counted in {@code reserved}). */
    private final Map<String, Pending> admitting = new HashMap<>();
    /** Admitting entries canceled meanwhile: they do not start, and give their slot back. */
    private final Set<String> canceledWhileAdmitting = new HashSet<>();
    /** Running episodes that hold slots of a cluster-wide limit: given back when they exit. */
    private final Set<String> holding = new HashSet<>();
    /** Group → the start counter at its last start: the group that started least recently goes first. */
    private final Map<String, Long> lastStart = new HashMap<>();
    /** Group → how many of its entries are in the queue: with one group (and one priority) there is no turn to weigh. */
    private final Map<String, Integer> waiting = new HashMap<>();
    /** Groups whose limit was full at their last try (what "waiting for its key" counts). */
    private final Set<String> atLimit = new HashSet<>();
    /** Rate limits that had no token at their last try (what "waiting for a rate limit" counts). */
    private final Set<String> ratesDry = new HashSet<>();
    private long starts;
    private long seq;
    /** Set once an entry with a priority of its own arrives (an operator's start): from then on the queue orders by priority. */
    private boolean anyPriority;

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

    /**
     * Turns on flow control: queued entries start by fairness over their groups, then priority
     * (aged by one level per {@code aging} waited; zero: no aging), then arrival; an entry with
     * limits starts only once {@code gate} gave it a slot of each. {@code later} runs the drains
     * that follow a fresh limited entry (off the thread that settled its insert).
     */
    synchronized void flowControlled(ConcurrencyGate gate, Clock clock, Duration aging, Executor later) {
        this.fair = true;
        this.gate = gate;
        aging(clock, aging);
        this.later = later;
    }

    /** The clock and aging a priority of its own (an operator's start) is ordered by, in a queue without flow control. */
    synchronized void aging(Clock clock, Duration aging) {
        this.clock = clock;
        this.agingMillis = aging.toMillis();
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
     * Under flow control, takes a free slot for a fresh episode that will be admitted under its
     * cluster-wide limits in the transaction that stores it — only while nothing waits in this
     * queue: an episode stored now must not pass one of the same key waiting for a slot (fairness
     * and order are the queue's). False: it goes through the queue, as before.
     */
    synchronized boolean tryReserveIdle() {
        if (accepting && queue.isEmpty() && admitting.isEmpty() && active.size() + reserved < maxConcurrent) {
            reserved++;
            return true;
        }
        return false;
    }

    /**
     * As {@link #tryReserveIdle}, while entries wait here: a local slot is free (the entries wait
     * for their limits or rates, or a drain is about to start them) and the fresh episode passes
     * none of them that it should not — the node's reserves admit it without a transaction
     * ({@link ConcurrencyGate#admitsInMemory}: no entry here waits for one of its limits, no other
     * node's waiters unread for longer than a recheck, a number free in the reserve of each key, no
     * rate), and no entry here has a priority of its own. Under those conditions an unlimited
     * actor's fresh episode would take the slot too; queued, it would cost its storing row a queued
     * mark, a lease renewed while it waits, and a start by the drain. False: the queue, as before.
     */
    synchronized boolean tryReservePassing(List<ConcurrencySlot> limits, List<RateLimit> rates) {
        if (accepting && !anyPriority && active.size() + reserved < maxConcurrent && gate.admitsInMemory(limits, rates)) {
            reserved++;
            return true;
        }
        return false;
    }

    /**
     * The reserved slot runs a fresh episode its storing transaction admitted (it holds its
     * cluster-wide slots: its terminal write gives them back, or its exit does).
     */
    void startAdmitted(String episodeId, RunSnapshot fresh, List<ConcurrencySlot> limits, List<RateLimit> rates,
            int priority) {
        synchronized (this) {
            reserved--;
            active.add(episodeId);
            holding.add(episodeId);
            gate.holding(episodeId, limits);
            started(new Pending(episodeId, false, null, false, fresh, fresh == null ? null : fresh.ref().expectationId())
                    .limitedBy(limits, rates, priority));
        }
        try {
            launcher.start(episodeId, fresh, false, null, () -> exited(episodeId));
        } catch (RuntimeException e) {
            leave(episodeId);
            throw e;
        }
    }

    /**
     * The reserved slot's episode was stored but not admitted (a limit was full): the slot is
     * free again and the episode waits in the queue like any other limited one.
     */
    String queueReserved(String episodeId, RunSnapshot fresh, List<ConcurrencySlot> limits, List<RateLimit> rates,
            int priority) {
        synchronized (this) {
            reserved--;
        }
        // the queue's drain is handed over (enqueueFresh): it also covers the slot freed here
        return enqueueFresh(episodeId, fresh, false, limits, rates, priority);
    }

    /**
     * Queues a freshly inserted episode behind the busy slots; with {@code shedOldest} the oldest
     * queued fresh trigger (never a restart) makes room. Returns the shed episode, or null.
     */
    String enqueueFresh(String episodeId, RunSnapshot fresh, boolean shedOldest) {
        return enqueueFresh(episodeId, fresh, shedOldest, List.of(), List.of(), 0);
    }

    /**
     * {@link #enqueueFresh(String, RunSnapshot, boolean)} for an episode that waits for
     * {@code limits} (never shed: a wait for a limit is not an overflow) and starts at {@code priority}.
     */
    String enqueueFresh(String episodeId, RunSnapshot fresh, boolean shedOldest, List<ConcurrencySlot> limits,
            List<RateLimit> rates, int priority) {
        String shed = null;
        boolean now;
        boolean handOver = false;
        synchronized (this) {
            if (shedOldest && limits.isEmpty() && rates.isEmpty()) {
                for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    // never one a pause holds: paused work waits whole (another expectation's may be shed)
                    if (!p.recovered() && !p.resume() && !held(p) && !p.limited()) {
                        it.remove();
                        left(p);
                        shed = p.episodeId();
                        break;
                    }
                }
            }
            queue.addLast(joined(stamp(new Pending(episodeId, false, null, false, fresh,
                    fresh == null ? null : fresh.ref().expectationId()).limitedBy(limits, rates, priority))));
            // without limits, or when the node's reserves admit it without a transaction, the drain
            // runs here: handed to another thread it costs that thread's wake-up per burst
            now = limits.isEmpty() && rates.isEmpty() || gate.admitsInMemory(limits, rates);
            if (!now && !drainPending) {
                // one drain handed over at a time: a burst of fresh limited entries costs one submission
                drainPending = true;
                handOver = true;
            }
        }
        if (now) {
            drain();
        } else if (handOver) {
            later.execute(this::pendingDrain);
        }
        return shed;
    }

    private void pendingDrain() {
        synchronized (this) {
            drainPending = false;
        }
        drain();
    }

    private Pending stamp(Pending p) {
        if (p.priority() != 0) {
            anyPriority = true;
        }
        // every entry, so that one with a priority of its own arriving later compares with those before it
        return p.stamped(clock.millis(), ++seq);
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
                        queue.addLast(joined(stamp(p)));
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
        if (active.contains(p.episodeId()) || admitting.containsKey(p.episodeId())) {
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
        Pending adopted = queued.adopting(p.handedClaim());
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
        leave(episodeId);
        drain();
    }

    /** The episode no longer runs here: its local slot is free, and its cluster-wide slots go back. */
    private void leave(String episodeId) {
        boolean held;
        synchronized (this) {
            active.remove(episodeId);
            held = holding.remove(episodeId);
        }
        if (held) {
            giveBack(episodeId);
        }
    }

    /** The episode's slots go back; a failure leaves them to the next admission that finds the key full. */
    private void giveBack(String episodeId) {
        try {
            gate.release(episodeId);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not give back the concurrency slots of episode " + episodeId + " (actor "
                    + actorId + "); the next admission that finds its key full frees them", e);
        }
    }

    /**
     * Starts queued episodes while slots are free, in queue order, passing over the entries a pause
     * holds (they keep their place and start on a later drain: the next exit, or the resume); a
     * start the executor refuses is left to recovery.
     *
     * <p>Flow-controlled, the next entry is the one whose group started least recently, then the
     * highest (aged) priority, then the oldest; an entry under a cluster-wide limit first takes a
     * slot on the database, outside the lock (its local slot reserved meanwhile). A limit found
     * full passes over every entry of that limit for the rest of this pass, so a key with a long
     * backlog costs one try (a read and a clean-up of ended slots) per pass, and the others' work
     * starts in the same pass.
     */
    void drain() {
        Set<String> full = null;
        while (true) {
            Pending next;
            List<Pending> batch = null;
            Pending plain = null;
            synchronized (this) {
                if (!accepting || queue.isEmpty() || active.size() + reserved >= maxConcurrent) {
                    return;
                }
                next = pick(full);
                if (next == null) {
                    return;
                }
                if (next.limited()) {
                    // the limited entries that fit the free local slots take their slots together,
                    // in one transaction: one at a time, a queue drains at one commit per start
                    batch = new ArrayList<>();
                    plain = admitting(next, batch, full);
                } else {
                    active.add(next.episodeId());
                    started(next);
                }
            }
            if (batch != null) {
                List<Pending> admitted = admitted(batch);
                for (Pending p : batch) {
                    if (!admitted.contains(p)) {
                        if (full == null) {
                            full = new HashSet<>();
                        }
                        full.addAll(p.limitNames());
                    }
                }
                admitted.forEach(this::launch);
                if (plain != null) {
                    launch(plain);
                }
                continue;
            }
            launch(next);
        }
    }

    /** Under the lock: the next entry to start (see {@link #drain}), out of the queue; null when none may. */
    private Pending pick(Set<String> full) {
        return fair || anyPriority ? fairestNotHeld(full) : firstNotHeld();
    }

    /** The most limited entries admitted in one transaction (bounded by the free local slots too). */
    private static final int ADMIT_AT_ONCE = 64;

    /**
     * Under the lock: reserves a local slot for {@code first} and for each further limited entry
     * that fits, into {@code batch}, in the order {@link #pick} gives them — each pick as if the one
     * before had started (its group's turn is taken), so a batch turns over the keys as single starts
     * would. A plain entry met on the way ends the batch and is returned, already active.
     */
    private Pending admitting(Pending first, List<Pending> batch, Set<String> full) {
        Pending p = first;
        while (true) {
            reserved++;
            admitting.put(p.episodeId(), p);
            batch.add(p);
            if (fair) {
                lastStart.put(p.group(), ++starts);
            }
            if (batch.size() >= ADMIT_AT_ONCE || active.size() + reserved >= maxConcurrent || queue.isEmpty()) {
                return null;
            }
            p = pick(full);
            if (p == null) {
                return null;
            }
            if (!p.limited()) {
                active.add(p.episodeId());
                started(p);
                return p;
            }
        }
    }

    /** Starts a task for an entry that is active here now; a start the executor refuses is left to recovery. */
    private void launch(Pending next) {
        try {
            launcher.start(next.episodeId(), next.fresh(), next.resume(), next.handedClaim(), () -> exited(next.episodeId()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not start queued episode " + next.episodeId() + "; recovery will pick it up", e);
            leave(next.episodeId());
            if (next.handedClaim() != null) {
                launcher.releaseClaim(next.handedClaim(), "episode " + next.episodeId() + " could not start");
            }
        }
    }

    /**
     * Takes the entries' slots on the database, each all or none, in one transaction; returns those
     * that hold them and are now active here. The others are back in the queue, in their order (a
     * full limit, another node faster, the database unreachable: a later pass tries again) — or
     * gone, when canceled meanwhile.
     */
    private List<Pending> admitted(List<Pending> batch) {
        long[] answers;
        try {
            List<ConcurrencyGate.Admission> asked = new ArrayList<>(batch.size());
            for (Pending p : batch) {
                // a fresh episode that waited here never held a slot: under a large limit it may take one blind
                asked.add(new ConcurrencyGate.Admission(p.episodeId(), p.limits(), p.rates(), !p.recovered() && p.fresh() != null,
                        rank(p)));
            }
            answers = gate.admit(asked);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not take the concurrency slots or rate tokens of " + batch.size() + " episode(s) of actor "
                    + actorId + " (first " + batch.get(0).episodeId() + "); they stay queued and a later pass tries again", e);
            answers = new long[batch.size()];
            java.util.Arrays.fill(answers, ConcurrencyGate.LIMIT_FULL);
        }
        List<Pending> admitted = new ArrayList<>(batch.size());
        List<Pending> back = new ArrayList<>();
        List<String> giveBack = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < batch.size(); i++) {
                Pending p = batch.get(i);
                boolean taken = answers[i] == ConcurrencyGate.ADMITTED;
                reserved--;
                admitting.remove(p.episodeId());
                if (canceledWhileAdmitting.remove(p.episodeId())) {
                    if (taken) {
                        giveBack.add(p.episodeId());
                    }
                    continue;
                }
                if (taken && accepting) {
                    active.add(p.episodeId());
                    holding.add(p.episodeId());
                    gate.holding(p.episodeId(), p.limits());
                    started(p);
                    admitted.add(p);
                    continue;
                }
                if (taken) {
                    giveBack.add(p.episodeId()); // this queue stopped meanwhile
                }
                back.add(p);
                if (answers[i] == ConcurrencyGate.LIMIT_FULL) {
                    atLimit.add(p.group());
                } else if (answers[i] > 0) {
                    ratesDry.addAll(p.rateNames());
                }
            }
            for (int i = back.size() - 1; i >= 0; i--) {
                queue.addFirst(joined(back.get(i)));
            }
        }
        giveBack.forEach(this::giveBack);
        return admitted;
    }

    /** Under the lock: the entry's group started now. */
    private void started(Pending next) {
        if (!ratesDry.isEmpty()) {
            next.rateNames().forEach(ratesDry::remove);
        }
        if (fair) {
            String group = next.group();
            lastStart.put(group, ++starts);
            atLimit.remove(group);
        }
    }

    /**
     * Removes and returns the entry to start next under flow control (see {@link #drain}); null
     * when every one is held by a pause or waits for a limit found {@code full} in this pass.
     * Under the lock; one walk of the queue.
     */
    private Pending fairestNotHeld(Set<String> full) {
        PauseCheck check = pauses;
        if (actorId != null && check.holds(actorId, null)) {
            return null;
        }
        if (waiting.size() <= 1 && !anyPriority) {
            return firstOfOneGroup(check, full);
        }
        Pending best = null;
        long bestLast = 0;
        for (Pending p : queue) {
            if (actorId != null && check.holds(actorId, p.expectationId()) || waitsFor(p, full)) {
                continue;
            }
            long last = lastStart.getOrDefault(p.group(), 0L);
            if (best == null || last < bestLast || last == bestLast && before(p, best)) {
                best = p;
                bestLast = last;
            }
        }
        if (best != null) {
            queue.remove(best);
            left(best);
        }
        return best;
    }

    /**
     * {@link #fairestNotHeld} when every queued entry is of one group and of one priority (no
     * turn between groups to take, no priority to weigh): the first in the queue that no pause
     * holds — the oldest, as the walk over all would find — without walking a long queue. When that
     * one waits for a limit found full in this pass and the group is a key, so do the others: every
     * entry of the group carries the key's limit, and an admission that found a limit full marks all
     * of its entry's limits full (the database does not say which one was), the key's among them; the
     * pass ends. The group of no key holds entries that share no limit (a rate of one expectation,
     * another with none, a restart without limits), so the walk goes on past the waiting ones.
     */
    private Pending firstOfOneGroup(PauseCheck check, Set<String> full) {
        for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (actorId != null && check.holds(actorId, p.expectationId())) {
                continue;
            }
            if (waitsFor(p, full)) {
                if (!p.group().isEmpty()) {
                    return null;
                }
                continue;
            }
            it.remove();
            left(p);
            return p;
        }
        return null;
    }

    /** Under the lock: {@code p} is in the queue now (counted in its group). */
    private Pending joined(Pending p) {
        waiting.merge(p.group(), 1, Integer::sum);
        return p;
    }

    /** Under the lock: {@code p} left the queue. */
    private void left(Pending p) {
        waiting.computeIfPresent(p.group(), (g, n) -> n > 1 ? n - 1 : null);
    }

    private static boolean waitsFor(Pending p, Set<String> full) {
        if (full == null || !p.limited()) {
            return false;
        }
        for (String name : p.limitNames()) {
            if (full.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code a} starts before {@code b} of the same turn: higher priority first, where every
     * {@code agingMillis} waited counts as one level more (so work of any priority starts within
     * (difference of levels) × aging of waiting), then the older, then the earlier queued.
     */
    private boolean before(Pending a, Pending b) {
        if (agingMillis > 0) {
            // priority + waited/aging compared at the same "now": the now cancels out
            long sa = a.priority() * agingMillis - a.since();
            long sb = b.priority() * agingMillis - b.since();
            if (sa != sb) {
                return sa > sb;
            }
        } else if (a.priority() != b.priority()) {
            return a.priority() > b.priority();
        }
        return a.since() != b.since() ? a.since() < b.since() : a.seq() < b.seq();
    }

    /** Without aging a priority level outweighs any wait (about 139 years in milliseconds). */
    private static final long LEVEL_WITHOUT_AGING = 1L << 42;

    /**
     * The entry's place against other nodes' queued work of the same limits, as {@link #before}
     * orders this queue: its priority aged by its wait, then its age; higher goes first. From the
     * clock's milliseconds, so nodes whose clocks agree compare alike (a skew of a second moves an
     * entry a second's worth of aging, which costs a turn, never a slot).
     */
    private long rank(Pending p) {
        return p.priority() * (agingMillis > 0 ? agingMillis : LEVEL_WITHOUT_AGING) - p.since();
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
                left(p);
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
        into.addAll(admitting.keySet());
        queue.forEach(p -> into.add(p.episodeId()));
    }

    /** The leases handed to episodes still waiting here (the heartbeat's audit). */
    synchronized List<HeldClaim> queuedClaims() {
        List<HeldClaim> claims = new ArrayList<>(queue.stream().map(Pending::handedClaim).filter(Objects::nonNull).toList());
        // an entry taking its concurrency slot is out of the queue for that moment, its lease still its own
        admitting.values().stream().map(Pending::handedClaim).filter(Objects::nonNull).forEach(claims::add);
        return claims;
    }

    /** Removes an episode that has not started (a cancel). */
    synchronized boolean dequeue(String episodeId) {
        if (admitting.containsKey(episodeId)) {
            return canceledWhileAdmitting.add(episodeId);
        }
        for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.episodeId().equals(episodeId)) {
                it.remove();
                left(p);
                return true;
            }
        }
        return false;
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

    /** Queued entries whose cluster-wide limit was full at their last try (not held by a pause). */
    synchronized int waitingForLimitCount() {
        if (atLimit.isEmpty()) {
            return 0;
        }
        return (int) queue.stream().filter(p -> p.limited() && !held(p) && atLimit.contains(p.group())).count();
    }

    /** Queued entries a rate limit held back at their last try (not held by a pause). */
    synchronized int waitingForRateCount() {
        if (ratesDry.isEmpty()) {
            return 0;
        }
        return (int) queue.stream().filter(p -> !p.rates().isEmpty() && !held(p)
                && p.rateNames().stream().anyMatch(ratesDry::contains)).count();
    }

    /** Whether entries wait for a cluster-wide limit (the periodic pass has something to try). */
    synchronized boolean waitingForLimits() {
        return queue.stream().anyMatch(Pending::limited);
    }
}
