package io.cyclium.runtime;

import io.cyclium.store.Tx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Slots a node holds in reserve for keys far from their limits, lent to its fresh episodes without
 * a statement: under a limit that does not bind, an episode would otherwise take and give back a
 * slot row each (two statements per limit per episode, the whole cost of a limit that never binds).
 *
 * <p>The rows stay the one guard: a block is rows of the key on which {@code episode_id} says
 * {@link ConcurrencyStore#BLOCK} and {@code holder} names this node, taken with the same guarded
 * statements as an episode's slot, so the database still counts every slot in use, lent or not. This
 * class only decides which of this node's episodes runs on which of its block's numbers: one number
 * is lent to one episode at a time and comes back when that episode's slots are given back.
 *
 * <p>{@link #keep} (the node's timer, every {@link #keepEvery}) does all the statements, each in a
 * transaction of its own, never in an episode's: it renews the blocks (every quarter of their life),
 * gives back numbers that stayed unused for a whole interval (all of them when nothing was lent) and
 * takes more numbers for keys whose fresh episodes found none free (those took slots of their own
 * meanwhile). Blocks take at most half of a key's limit ({@link ConcurrencyStore#takeBlock}): near its
 * limit a key's episodes take their own slots, queue, and are admitted in order across nodes.
 *
 * <p>Crashes and freezes: a block its node stops renewing is abandoned after its life and freed by
 * the next admission that finds the key full. A node lends a number only while its block was renewed
 * less than half a life ago by its own clock — a node that froze longer lends nothing until its next
 * renewal, which tells it which rows are still its own (another node may have freed the rest). Its
 * earlier life's blocks are freed at its first {@link #keep}. An episode that ran on a lent number and
 * is recovered elsewhere takes a slot of its own there, as any restart does.
 */
final class SlotBlocks {

    private static final Logger LOG = Logger.getLogger(SlotBlocks.class.getName());

    /** How long a block stands without renewal unless the node says otherwise (the lease). */
    static final Duration DEFAULT_LIFE = Duration.ofSeconds(30);

    /** Numbers taken into one block at one pass, at most. */
    static final int MOST_PER_TAKE = 32;

    /** Unused numbers a busy block keeps beyond what its busiest moment of an interval needed. */
    static final int SPARE = 2;

    /** Keys with a block on one node, at most: a node lends for the keys it is busiest with, not for every tenant. */
    static final int MOST_KEYS = 64;

    private final ConcurrencyStore store;
    private final String node;
    private final LongSupplier nanos;
    private final long lifeNanos;
    private final Map<Key, Block> blocks = new ConcurrentHashMap<>();
    private volatile boolean earlierLifeFreed;

    private record Key(String scope, String key) {
    }

    SlotBlocks(ConcurrencyStore store, String node, Duration life, LongSupplier nanos) {
        this.store = store;
        this.node = node;
        this.lifeNanos = life.toNanos();
        this.nanos = nanos;
    }

    /** How often {@link #keep} should run: a quarter of a block's life, at most one second. */
    Duration keepEvery() {
        return Duration.ofNanos(Math.min(lifeNanos / 4, Duration.ofSeconds(1).toNanos()));
    }

    /**
     * A number of this node's block of {@code slot} for a fresh episode, or {@link ConcurrencyStore#NONE}
     * (none free, the block is not fresh enough, or the limit is too small for blocks): then the
     * episode takes its own slot and the next {@link #keep} grows the block.
     */
    int lend(ConcurrencySlot slot) {
        if (slot.limit() < ConcurrencyStore.BLIND_FROM) {
            return ConcurrencyStore.NONE;
        }
        Key key = new Key(slot.scope(), slot.key());
        Block block = blocks.get(key);
        if (block == null) {
            if (blocks.size() >= MOST_KEYS) {
                return ConcurrencyStore.NONE;
            }
            block = blocks.computeIfAbsent(key, k -> new Block(slot));
        }
        return block.lend(slot, nanos.getAsLong());
    }

    /** Whether this node's reserve of {@code slot} has a number to lend now (a hint: another thread may take it first). */
    boolean hasFree(ConcurrencySlot slot) {
        Block block = blocks.get(new Key(slot.scope(), slot.key()));
        return block != null && block.hasFree(nanos.getAsLong());
    }

    /** A lent number is free again (its episode's slots were given back, or its admission undone). */
    void giveBack(ConcurrencySlot slot, int number) {
        Block block = blocks.get(new Key(slot.scope(), slot.key()));
        if (block != null) {
            block.giveBack(number);
        }
    }

    /** Numbers lent and free of {@code slot}'s block here (tests and the console's view). */
    int[] lentAndFree(ConcurrencySlot slot) {
        Block block = blocks.get(new Key(slot.scope(), slot.key()));
        return block == null ? new int[] {0, 0} : block.lentAndFree();
    }

    /**
     * One pass over the blocks: renew, give back what went unused, take what was missed. Each
     * block's statements in transactions of their own; a failure is logged and the block tried again
     * at the next pass (a block not renewed stops lending at half its life).
     */
    void keep(Tx tx) {
        if (!earlierLifeFreed) {
            // before this life takes any block: what carries this node's name is an earlier life's
            int freed = tx.inNewTransaction(em -> store.giveBackBlocks(em, node));
            earlierLifeFreed = true;
            if (freed > 0) {
                LOG.info(() -> "Freed " + freed + " slots an earlier run of node " + node + " held in reserve");
            }
        }
        for (Map.Entry<Key, Block> e : blocks.entrySet()) {
            Block block = e.getValue();
            try {
                if (block.keep(tx)) {
                    blocks.remove(e.getKey(), block);
                }
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, ex, () -> "Could not keep node " + node + "'s reserve of slots of "
                        + block.slot.describe() + " (tried again at the next pass; lent only while renewed): " + ex);
            }
        }
    }

    /** Gives back every free number (the node stops): lent ones stand until their block's life ends. */
    void giveBackFree(Tx tx) {
        for (Block block : blocks.values()) {
            try {
                List<Integer> free = block.takeFree(Integer.MAX_VALUE);
                tx.inNewTransaction(em -> store.giveBackBlock(em, block.slot, free, node));
            } catch (RuntimeException ex) {
                LOG.log(Level.WARNING, ex, () -> "Could not give back node " + node + "'s reserve of "
                        + block.slot.describe() + " (freed when its life ends): " + ex);
            }
        }
    }

    /** One key's block: the numbers this node holds, which of them are free, and what the last interval needed. */
    private final class Block {
        private volatile ConcurrencySlot slot;
        private final Set<Integer> owned = new HashSet<>();
        /**
         * Numbers lent now. A number comes back to {@link #free} only from here: a second give-back of
         * one number (a caller's mistake) must not lend it to two episodes at once.
         */
        private final Set<Integer> lentNow = new HashSet<>();
        /** Free numbers: lent from the tail (most recently back), given back from the head (longest unused). */
        private final ArrayDeque<Integer> free = new ArrayDeque<>();
        /** When its rows were last renewed (or first taken), by this node's clock, measured before the statement. */
        private long renewedNanos;
        /** Fresh episodes that found no free number since the last pass. */
        private int misses;
        /** Numbers lent since the last pass. */
        private int lends;
        /** The fewest free numbers at any moment since the last pass: that many were never needed. */
        private int lowWater;

        Block(ConcurrencySlot slot) {
            this.slot = slot;
        }

        synchronized int lend(ConcurrencySlot asked, long now) {
            slot = asked; // the limit of the latest definition
            if (free.isEmpty() || now - renewedNanos > lifeNanos / 2) {
                misses++;
                return ConcurrencyStore.NONE;
            }
            int n = free.pollLast();
            lentNow.add(n);
            lends++;
            lowWater = Math.min(lowWater, free.size());
            return n;
        }

        synchronized boolean hasFree(long now) {
            return !free.isEmpty() && now - renewedNanos <= lifeNanos / 2;
        }

        synchronized void giveBack(int number) {
            // a number dropped meanwhile (another node freed it after this node froze) is not lent again
            if (lentNow.remove(number) && owned.contains(number)) {
                free.addLast(number);
            }
        }

        synchronized int[] lentAndFree() {
            return new int[] {lentNow.size(), free.size()};
        }

        /** Removes up to {@code count} free numbers, longest unused first, from the block. */
        synchronized List<Integer> takeFree(int count) {
            List<Integer> out = new ArrayList<>();
            while (out.size() < count && !free.isEmpty()) {
                int n = free.pollFirst();
                owned.remove(n);
                out.add(n);
            }
            return out;
        }

        /** One pass; true when the block is empty and unwanted (it goes from the map). */
        boolean keep(Tx tx) {
            long start = nanos.getAsLong();
            int missed;
            int unused;
            int held;
            boolean renew;
            synchronized (this) {
                missed = misses;
                unused = lends == 0 ? free.size() : Math.max(0, lowWater - SPARE);
                misses = 0;
                lends = 0;
                held = owned.size();
                renew = held > 0 && start - renewedNanos >= lifeNanos / 4;
            }
            if (missed == 0 && unused > 0) {
                List<Integer> back = takeFree(unused);
                try {
                    tx.inNewTransaction(em -> store.giveBackBlock(em, slot, back, node));
                } catch (RuntimeException e) {
                    synchronized (this) { // still ours: the next pass tries again
                        owned.addAll(back);
                        back.forEach(free::addFirst);
                    }
                    throw e;
                }
                held -= back.size();
            }
            if (renew && held > 0) {
                int rows = tx.inNewTransaction(em -> store.confirmBlock(em, slot, node));
                boolean differs;
                synchronized (this) {
                    differs = rows != owned.size();
                }
                // another node freed some after a freeze (or a give-back's answer was lost): the rows say which are ours
                Set<Integer> ours = differs ? tx.inNewTransaction(em -> store.blockNumbers(em, slot, node)) : null;
                synchronized (this) {
                    if (ours != null) {
                        for (int n : ours) {
                            if (owned.add(n) && !lentNow.contains(n)) {
                                free.addLast(n);
                            }
                        }
                        owned.retainAll(ours);
                        free.retainAll(ours);
                    }
                    renewedNanos = start;
                }
            }
            if (missed > 0) {
                List<Integer> taken = tx.inNewTransaction(em -> store.takeBlock(em, slot, Math.min(missed + SPARE,
                        MOST_PER_TAKE), node));
                synchronized (this) {
                    if (owned.isEmpty()) {
                        renewedNanos = start;
                    }
                    owned.addAll(taken);
                    taken.forEach(free::addLast);
                }
            }
            synchronized (this) {
                lowWater = free.size();
                return owned.isEmpty() && misses == 0;
            }
        }
    }
}
