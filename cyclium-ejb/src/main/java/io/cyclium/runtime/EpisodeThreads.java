package io.cyclium.runtime;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The node's episode threads: a fixed pool ({@code cyclium.episode.executor-threads}) of threads
 * made by the container's {@link ManagedThreadFactory}.
 *
 * <p>Why not the container's default ManagedExecutorService: it captures and re-applies the
 * submitter's context on every task, and on Payara that capture walks the class path — two
 * submissions per episode made it most of the node's CPU. A managed thread carries the
 * application's context (class loader, naming) from its creation, which is all an episode task
 * needs: it starts its own transactions through the Tx bean and inherits none from whoever fired
 * the trigger. {@code cyclium.episode.executor=managed} runs them on Cyclium's own
 * ManagedExecutorService instead, defined with the application's context only
 * ({@link BoundedManagedExecutor}); the performance log compares the two.
 *
 * <p>The queue is unbounded on purpose: how many episodes run at once is decided per actor by its
 * slots before anything is submitted; when the slots of all actors add up to more than the
 * threads, a started episode waits here for a thread, holding its lease (which the heartbeat
 * renews, so no other node mistakes the wait for a death).
 */
final class EpisodeThreads {

    private EpisodeThreads() {
    }

    static ExecutorService start(ManagedThreadFactory factory, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory);
        // idle threads go away on a quiet node and come back with the next episode
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
