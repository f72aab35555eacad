package io.cyclium.it;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or the deadline passes (the runtime works asynchronously). */
final class Await {

    private Await() {
    }

    static <T> T until(Duration timeout, String what, Supplier<T> probe) {
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
