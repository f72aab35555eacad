package io.cyclium.it;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds or the deadline passes (the runtime works asynchronously). The
 * probe returns null or false for "not yet"; anything else is the result. Also used by the cluster
 * harness and its tests.
 */
public final class Await {

    private Await() {
    }

    /** Sleeps {@code millis}; an interrupt fails the test (and keeps the thread's interrupt flag). */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while sleeping " + millis + " ms", e);
        }
    }

    public static <T> T until(Duration timeout, String what, Supplier<T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = null;
        while (System.nanoTime() < deadline) {
            last = probe.get();
            if (last != null && !(last instanceof Boolean b && !b)) {
                return last;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
        }
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what + " (last: " + last + ")");
    }
}
