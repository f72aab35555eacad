package io.cyclium.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Runs n tasks on n threads released at the same instant, to make races happen in tests. Results
 * come back in task order; if any task throws, the first failure is rethrown with the others
 * attached as suppressed, after every task has finished.
 */
public final class Concurrently {

    private Concurrently() {
    }

    public static <T> List<T> run(int threads, IntFunction<T> task) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int n = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return task.apply(n);
                }));
            }
            ready.await();
            go.countDown();
            List<T> results = new ArrayList<>();
            AssertionError failure = null;
            for (Future<T> f : futures) {
                try {
                    results.add(f.get(60, TimeUnit.SECONDS));
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                    if (failure == null) {
                        failure = new AssertionError("a concurrent task failed: " + cause, cause);
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
