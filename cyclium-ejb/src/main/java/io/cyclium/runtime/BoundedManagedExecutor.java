package io.cyclium.runtime;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The node's episode executor on a container ManagedExecutorService ({@code cyclium.episode.executor=managed}):
 * at most {@code threads} tasks handed to it at once, the rest waiting here in order — what the
 * thread pool of {@link EpisodeThreads} does with its own threads. The bound is ours because a
 * definition's {@code maxAsync} is fixed when the application is compiled, and the thread count is
 * a setting ({@code cyclium.episode.executor-threads}).
 *
 * <p>An application may not shut a ManagedExecutorService down (the container owns its life), so
 * {@link #shutdown} only stops taking tasks; those handed over or waiting still run, as with the
 * pool. The queue is unbounded for the pool's reason: the actors' slots decide what runs at once
 * before anything is submitted.
 */
final class BoundedManagedExecutor extends AbstractExecutorService {

    private static final Logger LOG = Logger.getLogger(BoundedManagedExecutor.class.getName());

    private final Executor managed;
    private final int threads;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int running;
    private boolean shutdown;

    BoundedManagedExecutor(Executor managed, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("an episode executor needs at least one thread, got " + threads);
        }
        this.managed = managed;
        this.threads = threads;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (shutdown) {
                throw new RejectedExecutionException("the episode executor is shut down");
            }
            if (running >= threads) {
                waiting.add(task);
                return;
            }
            running++;
        }
        handOver(task);
    }

    private void handOver(Runnable task) {
        try {
            managed.execute(() -> runThenNext(task));
        } catch (RuntimeException e) {
            // the container refused it (stopping): nothing of it ran; give the place back
            synchronized (this) {
                running--;
                notifyAll();
            }
            throw e;
        }
    }

    /**
     * Runs {@code task}, then the waiting ones on the same managed thread while any wait: one
     * hand-over per burst instead of one per task, and the place is never given back while work
     * waits (a task submitted meanwhile joins the queue rather than racing it).
     */
    private void runThenNext(Runnable task) {
        Runnable next = task;
        boolean givenBack = false;
        try {
            while (next != null) {
                try {
                    next.run();
                } catch (RuntimeException e) {
                    // the episode task handles its own failures; one escaping must not strand the queue
                    LOG.log(Level.WARNING, "An episode task ended with an uncaught failure", e);
                }
                synchronized (this) {
                    next = waiting.poll();
                    if (next == null) {
                        running--;
                        givenBack = true;
                        notifyAll();
                    }
                }
            }
        } finally {
            if (!givenBack) {
                // an Error left this thread: the place goes to the next waiting task on a thread of its own
                Runnable again;
                synchronized (this) {
                    again = waiting.poll();
                    if (again == null) {
                        running--;
                        notifyAll();
                    }
                }
                if (again != null) {
                    handOver(again);
                }
            }
        }
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
        notifyAll();
    }

    @Override
    public List<Runnable> shutdownNow() {
        synchronized (this) {
            shutdown = true;
            List<Runnable> left = List.copyOf(waiting);
            waiting.clear();
            notifyAll();
            return left;
        }
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && running == 0 && waiting.isEmpty();
    }

    @Override
    public synchronized boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!isTerminated()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** Tasks handed to the managed executor and not yet finished (for tests and the actors' view). */
    synchronized int running() {
        return running;
    }
}
