package io.cyclium.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bound Cyclium puts on a container's ManagedExecutorService (the container's own executor
 * has no bound we can set at run time). Here the executor behind it is a plain thread pool: what
 * the bound does is independent of whose threads run the tasks.
 */
class BoundedManagedExecutorTest {

    private final ExecutorService behind = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        behind.shutdownNow();
    }

    @Test
    void never_more_tasks_run_at_once_than_the_threads_it_was_given_and_every_task_runs() throws Exception {
        BoundedManagedExecutor executor = new BoundedManagedExecutor(behind, 3);
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(200);
        for (int i = 0; i < 200; i++) {
            executor.execute(() -> {
                most.accumulateAndGet(now.incrementAndGet(), Math::max);
                sleep(1);
                now.decrementAndGet();
                done.countDown();
            });
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThan(1);
    }

    @Test
    void tasks_that_wait_start_in_the_order_they_were_submitted() throws Exception {
        BoundedManagedExecutor executor = new BoundedManagedExecutor(behind, 1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        executor.execute(() -> await(release));
        for (int i = 0; i < 20; i++) {
            int n = i;
            executor.execute(() -> order.add(n));
        }
        release.countDown();
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList());
    }

    @Test
    void a_task_that_throws_does_not_keep_the_waiting_ones_from_running() throws Exception {
        BoundedManagedExecutor executor = new BoundedManagedExecutor(behind, 1);
        CountDownLatch ran = new CountDownLatch(2);
        executor.execute(() -> {
            throw new IllegalStateException("a strategy's failure the task did not catch");
        });
        executor.execute(ran::countDown);
        executor.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void after_shutdown_it_takes_no_task_but_finishes_those_it_has() throws Exception {
        BoundedManagedExecutor executor = new BoundedManagedExecutor(behind, 1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger finished = new AtomicInteger();
        executor.execute(() -> {
            await(release);
            finished.incrementAndGet();
        });
        executor.execute(finished::incrementAndGet);
        executor.shutdown();
        assertThatThrownBy(() -> executor.execute(finished::incrementAndGet)).isInstanceOf(RejectedExecutionException.class);
        assertThat(executor.isTerminated()).isFalse();
        release.countDown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(finished.get()).isEqualTo(2);
        assertThat(executor.running()).isZero();
    }

    @Test
    void a_task_the_container_refuses_gives_its_place_back() throws Exception {
        behind.shutdown(); // a stopping container refuses new tasks
        BoundedManagedExecutor executor = new BoundedManagedExecutor(behind, 1);
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThat(executor.running()).isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
