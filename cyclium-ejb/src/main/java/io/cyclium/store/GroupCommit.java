package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group commit: the short writes of many episode tasks and triggers (an episode row with its first
 * lease, a terminal status with its journal row and lease settlement) go into one transaction
 * instead of one each. A caller hands its work over and waits; a writer thread takes everything
 * waiting (up to {@code maxUnits}), runs it in one transaction and commits, then wakes each caller
 * with its own result. While one batch commits the next one fills, so the busier the node the
 * fewer transactions per write — and a write still returns only once it is durable.
 *
 * <p>Failure: when the shared transaction fails for any reason (one work threw — a guard's
 * {@link Undo}, a deadlock, a constraint — or the database is gone), nothing of it was applied and
 * every caller runs its own work again, alone, in its own thread, exactly as without group commit:
 * the one whose work is at fault gets its own exception, the others their results. Work must
 * therefore be safe to run again: re-read inside the transaction whatever it decides on (every
 * guarded statement does) and reset, at its start, whatever it captured from an earlier run.
 *
 * <p>A transaction left rollback-only by a work that caught its own failed statement would roll
 * back quietly and take the others' writes with it; the batch checks for that and fails instead.
 *
 * <p>Writes already inside a caller's transaction (host code firing in its own transaction: the
 * transactional outbox) are never batched; they commit or roll back with the caller.
 */
public final class GroupCommit implements Tx {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class.getName());

    private final Tx delegate;
    private final int maxUnits;
    private final LinkedBlockingQueue<Unit<?>> waiting = new LinkedBlockingQueue<>();
    private final List<Thread> writers = new ArrayList<>();
    private final Consumer<Integer> batchSizes;
    private final boolean deferUpdates;
    private volatile boolean closed;
    /** How long a caller waits for a writer to take its write before giving up on it (then nothing of it is written). */
    private volatile java.time.Duration handOver = java.time.Duration.ofMinutes(5);
    /**
     * Set while a caller runs its work alone after its batch rolled back for certain (a work or a
     * count failed it before its COMMIT was sent): nothing of the earlier run can have landed.
     */
    private static final ThreadLocal<Boolean> AFTER_ROLLBACK = new ThreadLocal<>();
    /** The recorded transaction this thread runs, if any ({@link #inRecordedTransaction}). */
    private final ThreadLocal<Recorded> recordedHere = new ThreadLocal<>();

    private GroupCommit(Tx delegate, int maxUnits, Consumer<Integer> batchSizes, boolean deferUpdates) {
        this.delegate = delegate;
        this.maxUnits = maxUnits;
        this.batchSizes = batchSizes;
        this.deferUpdates = deferUpdates;
    }

    /**
     * Starts {@code writers} writer threads from {@code threads} (managed threads in the container:
     * they carry the application's context, so the Tx bean works from them). {@code batchSizes}
     * hears the number of writes of each committed batch (a histogram). With {@code maxUnits} 1 no
     * thread is started and every write runs alone in its caller's thread. With {@code deferUpdates}
     * the updates of a batch's works go to the database as JDBC batches ({@link DeferredUpdates}),
     * a work whose writes are all {@link NativeSql#independent} as one statement
     * ({@link OneStatementWork}); only for PostgreSQL, whose driver reports a count per batched
     * statement and whose data-modifying {@code WITH} that one statement is.
     */
    public static GroupCommit start(Tx delegate, ThreadFactory threads, int maxUnits, int writers,
            Consumer<Integer> batchSizes, boolean deferUpdates) {
        if (maxUnits < 1 || writers < 1) {
            throw new IllegalArgumentException("group commit needs maxUnits >= 1 and writers >= 1, got " + maxUnits
                    + " and " + writers);
        }
        GroupCommit g = new GroupCommit(delegate, maxUnits, batchSizes, deferUpdates);
        if (maxUnits > 1) {
            for (int i = 0; i < writers; i++) {
                Thread t = threads.newThread(g::writeLoop);
                if (t == null) {
                    throw new IllegalStateException("the thread factory gave no thread for the group commit writer");
                }
                t.setName("cyclium-group-commit-" + i);
                t.setDaemon(true);
                g.writers.add(t);
            }
            g.writers.forEach(Thread::start);
        }
        return g;
    }

    /**
     * The deadline of a hand-over: a caller whose write no writer has taken within it takes the
     * write back and fails with {@link HandOverTimeout} (nothing of it was written, so running it
     * again later is safe). A write a writer has taken is waited for: its transaction decides. Without
     * a deadline a writer stuck on the database (a frozen node's row locks, a server that stopped
     * answering) held every caller of the node — request threads included — for as long.
     */
    public GroupCommit handOverDeadline(java.time.Duration deadline) {
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("a hand-over deadline must be positive, got " + deadline);
        }
        this.handOver = deadline;
        return this;
    }

    /** No writer took the write within the hand-over deadline; nothing of it was written. */
    public static final class HandOverTimeout extends RuntimeException {
        HandOverTimeout(String message) {
            super(message);
        }
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return delegate.inNewTransaction(work);
    }

    @Override
    public boolean callerHasTransaction() {
        return delegate.callerHasTransaction();
    }

    @Override
    public boolean rollbackOnly(EntityManager em) {
        return delegate.rollbackOnly(em);
    }

    /**
     * In the caller's transaction when there is one (unbatched: it commits with the caller);
     * otherwise batched with other writes, and {@code settled} is told once it committed (or not).
     */
    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work, Consumer<Boolean> settled) {
        Recorded recorded = recordedHere.get();
        if (recorded != null) {
            return recorded.take(work, settled);
        }
        if (delegate.callerHasTransaction()) {
            return delegate.inCallerTransaction(work, settled);
        }
        return Settling.telling(settled, () -> inGroupTransaction(work));
    }

    @Override
    public <T> T inGroupTransaction(Function<EntityManager, T> work) {
        return inGroupTransaction(null, work);
    }

    @Override
    public <T> T inGroupTransaction(String lockOrder, Function<EntityManager, T> work) {
        if (writers.isEmpty() || closed) {
            return alone(work);
        }
        Unit<T> unit = new Unit<>(work, lockOrder);
        waiting.add(unit);
        if (closed && waiting.remove(unit)) {
            // closed between the check and the add, and no writer took it: run it here
            return alone(work);
        }
        if (!unit.await(handOver) && waiting.remove(unit)) {
            throw new HandOverTimeout("no group-commit writer took this write within " + handOver.toMillis()
                    + " ms (the database is slow to answer, or a batch is stuck on a lock); nothing of it was written");
        }
        unit.awaitUninterruptibly();
        if (unit.committed) {
            return unit.result;
        }
        if (unit.failure != null) {
            throw unit.failure;
        }
        // the shared transaction failed: nothing of it stands; this work runs again on its own
        if (!unit.rolledBack) {
            return alone(work); // failed at its COMMIT: the earlier run may have landed
        }
        AFTER_ROLLBACK.set(Boolean.TRUE);
        try {
            return alone(work);
        } finally {
            AFTER_ROLLBACK.remove();
        }
    }

    /**
     * Whether this thread runs a work again after its batch rolled back for certain: a run recorded
     * into that batch did not reach the database, though it ran to completion (see Reruns).
     */
    public static boolean runsAfterRollback() {
        return AFTER_ROLLBACK.get() != null;
    }

    /**
     * Runs {@code work} in a new transaction of its own in which the writes it hands to
     * {@link #inCallerTransaction} from this thread go to the database as JDBC batches, the way a
     * group commit's do ({@link DeferredUpdates}): each is recorded and answered as if every
     * statement changed one row, and the recorded statements run as batches before the commit —
     * also before any write that cannot be recorded, so the database sees them in the order they
     * were made. A batch of events sent in one request becomes a few round trips instead of two
     * per event.
     *
     * <p>When a recorded statement changed other than one row (a dedupe key already taken, within
     * the batch or by another node), the answers the work was given were wrong: the transaction
     * rolls back, every {@code settled} hears false, and this returns empty. The caller then runs
     * its work again the ordinary way (each write meeting the database's real answer), so the work
     * must be safe to run twice, as a group commit's are. Any other failure is thrown as it is.
     * Without deferred updates (a database whose driver does not count batched statements one by
     * one) the work simply runs in a new transaction.
     */
    public <T> java.util.Optional<T> inRecordedTransaction(Function<EntityManager, T> work) {
        if (!deferUpdates || recordedHere.get() != null) {
            return java.util.Optional.ofNullable(delegate.inNewTransaction(work));
        }
        Recorded recorded = new Recorded();
        recordedHere.set(recorded);
        try {
            return java.util.Optional.ofNullable(delegate.inNewTransaction(em -> {
                // one synchronization for every recorded write: each hears how the transaction ended
                delegate.inCallerTransaction(joined -> null, recorded::settle);
                T result = work.apply(em);
                recorded.flush(em);
                if (recorded.mismatched) {
                    throw new IllegalStateException("a recorded write changed other than one row; rolling back");
                }
                if (delegate.rollbackOnly(em)) {
                    throw new IllegalStateException("a write in the recorded transaction left it rollback-only");
                }
                return result;
            }));
        } catch (RuntimeException e) {
            if (recorded.mismatched) {
                return java.util.Optional.empty();
            }
            throw e;
        } finally {
            recordedHere.remove();
        }
    }

    /** The writes of one {@link #inRecordedTransaction}, waiting to go to the database as batches. */
    private final class Recorded {
        private final List<List<NativeSql>> works = new ArrayList<>();
        /** The recorded writes' callers, told together how the transaction ended (one synchronization). */
        private final List<Consumer<Boolean>> settles = new ArrayList<>();
        private boolean mismatched;

        <T> T take(Function<EntityManager, T> work, Consumer<Boolean> settled) {
            DeferredUpdates.Recording<T> r = DeferredUpdates.recorded(work);
            if (r == null) {
                return forReal(work, settled);
            }
            works.add(r.statements());
            settles.add(settled);
            return r.answer();
        }

        void settle(boolean committed) {
            settles.forEach(s -> s.accept(committed));
        }

        private <T> T forReal(Function<EntityManager, T> work, Consumer<Boolean> settled) {
            return delegate.inCallerTransaction(em -> {
                flush(em);
                return work.apply(em);
            }, settled);
        }

        /**
         * Sends what is recorded so far. A count other than 1 is not thrown into the work (whose
         * own error handling would take it for a failure of its own): the transaction goes on,
         * doomed, and rolls back at its end. A statement the database refuses is thrown.
         */
        void flush(EntityManager em) {
            if (works.isEmpty() || mismatched) {
                works.clear();
                return;
            }
            try {
                DeferredUpdates.run(em, works, deferUpdates);
            } catch (DeferredUpdates.CountMismatch e) {
                LOG.log(Level.FINE, "A recorded write changed other than one row", e);
                mismatched = true;
            } finally {
                works.clear();
            }
        }
    }

    /** Writes handed over and not yet taken by a writer. */
    public int waiting() {
        return waiting.size();
    }

    /**
     * Whether {@code em} is the recording entity manager a batch first runs a work against (its
     * statements are answered, not sent): a work that checks on a second run whether its first one
     * landed must not count a recording that was refused as a run that reached the database.
     */
    public static boolean recording(EntityManager em) {
        return DeferredUpdates.isRecording(em);
    }

    /**
     * Called first thing by a work that a batch cannot record (it reads what it wrote, or decides
     * on a real count): on the recording entity manager it ends the recording there, before the
     * work built anything, and the batch runs the work for real; otherwise it does nothing.
     */
    public static void runsForReal(EntityManager em, String why) {
        DeferredUpdates.refuse(em, why);
    }

    /** Stops batching: writes queued now still commit; later ones run alone in their callers' threads. */
    public void close() {
        closed = true;
        writers.forEach(Thread::interrupt);
    }

    private <T> T alone(Function<EntityManager, T> work) {
        return DeadlockRetry.inNewTransaction(delegate, work, attempt -> LOG.fine(() ->
                "A write was a deadlock victim (attempt " + attempt + "); running it again"));
    }

    private void writeLoop() {
        List<Unit<?>> batch = new ArrayList<>(maxUnits);
        while (true) {
            batch.clear();
            try {
                Unit<?> first = closed ? waiting.poll() : waiting.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
            } catch (InterruptedException e) {
                // close() wakes the writers: the next turn takes what is left without waiting
                continue;
            }
            waiting.drainTo(batch, maxUnits - 1);
            try {
                commit(batch);
            } catch (RuntimeException | Error e) {
                // commit() wakes every caller itself; this only guards the loop
                LOG.log(Level.WARNING, "The group commit writer failed outside a batch; it goes on", e);
                batch.forEach(u -> u.rerunAlone(false)); // whether anything landed is not known here
            }
        }
    }

    private void commit(List<Unit<?>> batch) {
        if (batch.size() == 1) {
            // alone anyway: in the caller's way, on real counts (a deadlock victim runs again)
            batch.get(0).runAlone(this::alone);
            return;
        }
        // works whose every write is a deferrable update are recorded (no transaction needed for
        // that), the others run in the shared transaction; the recorded ones run as batches after them
        List<List<NativeSql>> recorded = new ArrayList<>();
        List<Unit<?>> forReal = new ArrayList<>();
        for (Unit<?> u : batch) {
            List<NativeSql> statements = deferUpdates ? u.record() : null;
            if (statements == null) {
                forReal.add(u);
            } else {
                recorded.add(statements);
            }
        }
        // works that hold a named row (a step's advance, its instance) in the order of the names,
        // after the others, in the order they came: another node's batch holding some of the same
        // rows takes them in the same order (a stable sort), so the two never deadlock on them
        forReal.sort(BY_LOCK_ORDER);
        boolean[] committing = new boolean[1];
        try {
            delegate.inNewTransaction(em -> {
                for (Unit<?> u : forReal) {
                    u.apply(em);
                }
                DeferredUpdates.run(em, recorded, deferUpdates);
                if (delegate.rollbackOnly(em)) {
                    throw new IllegalStateException("a write in the batch left the transaction rollback-only");
                }
                committing[0] = true;
                return null;
            });
        } catch (RuntimeException | Error e) {
            LOG.log(Level.FINE, "A batch of " + batch.size() + " writes failed; each runs again on its own", e);
            // thrown before the COMMIT went out: rolled back for certain; at the COMMIT: unknown
            boolean rolledBack = !committing[0];
            batch.forEach(u -> u.rerunAlone(rolledBack));
            return;
        }
        batchSizes.accept(batch.size());
        batch.forEach(Unit::committed);
    }

    private static final Comparator<Unit<?>> BY_LOCK_ORDER = Comparator.comparing(u -> u.lockOrder,
            Comparator.nullsFirst(Comparator.naturalOrder()));

    /** One caller's work, waiting for its batch. */
    private static final class Unit<T> {
        private final Function<EntityManager, T> work;
        /** The row this work holds while it runs, whose name orders it in its batch (null: none). */
        private final String lockOrder;
        private final CountDownLatch done = new CountDownLatch(1);
        private T pending;
        private volatile T result;
        private volatile boolean committed;
        private volatile RuntimeException failure;
        /** Handed back after its batch rolled back for certain (not at an unknown COMMIT). */
        private volatile boolean rolledBack;

        Unit(Function<EntityManager, T> work, String lockOrder) {
            this.work = work;
            this.lockOrder = lockOrder;
        }

        void apply(EntityManager em) {
            pending = work.apply(em);
        }

        /**
         * Runs the work against a recording entity manager: its statements when every write was a
         * deferrable update (its result then holds only if each changes one row), else null.
         */
        List<NativeSql> record() {
            DeferredUpdates.Recording<T> r = DeferredUpdates.recorded(work);
            if (r == null) {
                return null;
            }
            pending = r.answer();
            return r.statements();
        }

        void committed() {
            result = pending;
            committed = true;
            done.countDown();
        }

        void rerunAlone(boolean certainlyRolledBack) {
            rolledBack = certainlyRolledBack;
            done.countDown();
        }

        void runAlone(Function<Function<EntityManager, T>, T> alone) {
            try {
                result = alone.apply(work);
                committed = true;
            } catch (RuntimeException e) {
                failure = e;
            } catch (Error e) {
                failure = new IllegalStateException("a write failed: " + e, e);
            }
            done.countDown();
        }

        /** Waits up to {@code d}; true when the write was settled (committed, failed or handed back) meanwhile. */
        boolean await(java.time.Duration d) {
            try {
                return done.await(d.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        void awaitUninterruptibly() {
            boolean interrupted = false;
            while (true) {
                try {
                    done.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
