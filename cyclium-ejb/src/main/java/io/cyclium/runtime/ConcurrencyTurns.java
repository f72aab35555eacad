package io.cyclium.runtime;

import io.cyclium.runtime.ConcurrencyGate.Admission;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's side of taking turns on a full limit ({@link ConcurrencyWaiters}, V24): what it last
 * read of the other nodes' waiting work, which limits it has said it waits for, and when it gives
 * way. Used by {@link ClusterConcurrency} inside an admission's transaction; the rows it writes are
 * this node's only, so it takes no lock another node waits for.
 */
final class ConcurrencyTurns {

    private final ConcurrencyWaiters waiters;
    private final String node;
    /** How long another node's waiter row counts after its last refresh: four of its rechecks, at least 2 s. */
    private final long liveSeconds;
    /** How often the other nodes' waiters are read again, at most: once per recheck interval. */
    private final long readEveryNanos;
    /**
     * How far ahead (in rank: milliseconds of waiting, a priority level counting as the aging
     * interval) another node's waiting work must be before this node gives way: a freed slot left
     * for another node stays free until that node's next recheck, so giving way for every small
     * difference would cost a limit much of its throughput when runs are short (seen: 60 starts of a
     * limit of 2 over three nodes took 19 s instead of 11). With the margin no entry waits behind
     * work that came more than the margin after it, and more urgent work still goes first.
     */
    private final long giveWayMargin;
    /** This node's monotonic clock (a {@link System#nanoTime} reading in production). */
    private final java.util.function.LongSupplier nanos;
    /** The other nodes' waiters as last read, and when ({@link #nanos}). */
    private volatile Read lastRead = new Read(List.of(), Long.MIN_VALUE);
    /** The limits ("scope\nkey") this node has a waiter row for (a hint: a lost one expires on the database). */
    private final Set<String> waitingOn = ConcurrentHashMap.newKeySet();

    private record Read(List<ConcurrencyWaiters.Waiter> others, long at) {
    }

    ConcurrencyTurns(ConcurrencyWaiters waiters, String node, Duration recheck, java.util.function.LongSupplier nanos) {
        this.nanos = nanos;
        this.waiters = waiters;
        this.node = node;
        this.liveSeconds = Math.max(2, (recheck.toMillis() * 4 + 999) / 1000);
        this.readEveryNanos = recheck.toNanos();
        this.giveWayMargin = liveSeconds * 1000;
    }

    /**
     * Other nodes' waiters, when some admission here is ranked and limited: read at most once per
     * recheck interval (a read makes the shared transaction run for real instead of recorded), else
     * the last read. A row missed for that long costs its node a turn, never a slot.
     */
    List<ConcurrencyWaiters.Waiter> others(EntityManager em, List<Admission> asked) {
        if (asked.stream().noneMatch(a -> a.rank() != ConcurrencyGate.UNRANKED && !a.slots().isEmpty())) {
            return List.of();
        }
        Read read = lastRead;
        long now = nanos.getAsLong();
        if (read.at() == Long.MIN_VALUE || now - read.at() >= readEveryNanos) {
            read = new Read(waiters.others(em, node, liveSeconds), now);
            lastRead = read;
        }
        return read.others();
    }

    /**
     * Other nodes' waiters as last read, when that read is recent enough to decide on without a
     * transaction; null when a read is due (the admission then runs in a transaction and reads).
     */
    List<ConcurrencyWaiters.Waiter> othersIfRecent() {
        Read read = lastRead;
        long now = nanos.getAsLong();
        return read.at() == Long.MIN_VALUE || now - read.at() >= readEveryNanos ? null : read.others();
    }

    /** Whether this node has a waiter row for one of {@code slots} (an admission under them deletes it). */
    boolean waitsOn(List<ConcurrencySlot> slots) {
        if (waitingOn.isEmpty()) {
            return false;
        }
        for (ConcurrencySlot slot : slots) {
            if (waitingOn.contains(name(slot))) {
                return true;
            }
        }
        return false;
    }

    /** The limit of {@code a} that another node's work, ahead by more than the margin, waits for; null when none. */
    ConcurrencySlot givesWayTo(List<ConcurrencyWaiters.Waiter> others, Admission a) {
        return a.rank() == ConcurrencyGate.UNRANKED ? null : ConcurrencyWaiters.ahead(others, a.slots(), a.rank() + giveWayMargin);
    }

    /** This node's queued work of {@code rank} waits for {@code slot}: its row says so (once per transaction and slot). */
    void waiting(EntityManager em, ConcurrencySlot slot, long rank, Set<String> marked) {
        String name = name(slot);
        if (marked.add(name)) {
            waiters.waiting(em, slot, node, rank);
            waitingOn.add(name);
        }
    }

    /** Work under {@code slots} was admitted here: this node's rows for them go (its next full find writes them again). */
    void admitted(EntityManager em, List<ConcurrencySlot> slots, Set<String> marked) {
        if (waitingOn.isEmpty()) {
            return;
        }
        for (ConcurrencySlot slot : slots) {
            String name = name(slot);
            if (waitingOn.remove(name)) {
                waiters.done(em, slot, node);
                marked.remove(name);
            }
        }
    }

    private static String name(ConcurrencySlot slot) {
        return slot.scope() + "\n" + slot.key();
    }
}
