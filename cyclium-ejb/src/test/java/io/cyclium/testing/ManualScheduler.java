package io.cyclium.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that runs nothing by itself: its tasks run on the test's thread when the test moves
 * the {@link MutableClock} past their due time with {@link #advance} (or calls {@link #runDue}).
 * Each task runs with the clock set to its own due time, so a chain of timers sees the instants a
 * punctual real scheduler would give it. To simulate a pause (GC, suspended VM), move the clock
 * itself and then call {@link #runDue}: overdue tasks then run late, as they would after a pause.
 *
 * <p>A task that throws fails the call that ran it, rather than hiding the exception in its future.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final MutableClock clock;
    private final List<Task<?>> tasks = new ArrayList<>();
    private long sequence;
    private boolean shutdown;

    public ManualScheduler(MutableClock clock) {
        this.clock = clock;
    }

    /** Runs every task due now, including tasks those tasks schedule for now. */
    public void runDue() {
        advanceTo(clock.instant());
    }

    /** Moves the clock forward by {@code duration}, running each task at its due time on the way. */
    public void advance(Duration duration) {
        advanceTo(clock.instant().plus(duration));
    }

    public void advanceTo(Instant target) {
        for (Task<?> next = nextDueBy(target); next != null; next = nextDueBy(target)) {
            if (next.due.isAfter(clock.instant())) {
                clock.set(next.due);
            }
            next.run();
        }
        if (target.isAfter(clock.instant())) {
            clock.set(target);
        }
    }

    /** Tasks scheduled that have neither run nor been cancelled. */
    public synchronized int pendingCount() {
        tasks.removeIf(Task::isDone);
        return tasks.size();
    }

    private synchronized Task<?> nextDueBy(Instant target) {
        tasks.removeIf(Task::isDone);
        return tasks.stream()
                .filter(t -> !t.due.isAfter(target))
                .min(Comparator.<Task<?>, Instant>comparing(t -> t.due).thenComparingLong(t -> t.sequence))
                .orElse(null);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return schedule(Executors.callable(command, null), delay, unit);
    }

    @Override
    public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException("scheduler is shut down");
        }
        Instant due = clock.instant().plusNanos(Math.max(0, unit.toNanos(delay)));
        Task<V> task = new Task<>(callable, due, sequence++);
        tasks.add(task);
        return task;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported; the code under test re-arms one-shot timers");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported; the code under test re-arms one-shot timers");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        tasks.forEach(t -> t.cancel(false));
        tasks.clear();
        return List.of();
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return isShutdown() && pendingCount() == 0;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task<V> implements ScheduledFuture<V> {

        private enum State { PENDING, DONE, CANCELLED }

        private final Callable<V> body;
        private final Instant due;
        private final long sequence;
        private volatile State state = State.PENDING;
        private V result;
        private Exception failure;

        Task(Callable<V> body, Instant due, long sequence) {
            this.body = body;
            this.due = due;
            this.sequence = sequence;
        }

        void run() {
            if (state != State.PENDING) {
                return;
            }
            try {
                result = body.call();
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            } catch (Exception e) {
                failure = e;
                throw new IllegalStateException("scheduled task failed", e);
            } finally {
                state = State.DONE;
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.between(clock.instant(), due));
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (state != State.PENDING) {
                return false;
            }
            state = State.CANCELLED;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return state == State.CANCELLED;
        }

        @Override
        public boolean isDone() {
            return state != State.PENDING;
        }

        @Override
        public V get() throws ExecutionException {
            if (state == State.CANCELLED) {
                throw new CancellationException();
            }
            if (state == State.PENDING) {
                throw new IllegalStateException("task due at " + due + " has not run: advance the clock first");
            }
            if (failure != null) {
                throw new ExecutionException(failure);
            }
            return result;
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws ExecutionException {
            return get();
        }
    }
}
