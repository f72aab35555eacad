package io.cyclium.execution;

import io.cyclium.store.WriteFailures;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a task's own write survives the database going away for a while: the same write is tried
 * again with a growing pause (0.1 s doubling up to 5 s) for as long as {@code patience} allows,
 * the node is not stopping the task, and its lease is not lost. A write that still fails then is
 * not an episode failure: the task gives the episode up ({@link GaveUp}), leaving the row running
 * and its lease to lapse, so that recovery restarts it under its policy. Failing it there and then
 * would have been a second write into the same outage — and, when that failed too, a row left
 * running that this node still vouched for.
 *
 * <p>A write that may already have committed (its commit's answer was lost) runs again the same
 * way: every write of a task re-checks, when it runs a second time, whether its first run landed
 * ({@link EpisodeWrites}), so the retry never writes twice and never mistakes its own row for
 * another owner's.
 */
final class WriteRetry {

    private static final Logger LOG = Logger.getLogger(WriteRetry.class.getName());
    private static final long FIRST_PAUSE_MS = 100;
    private static final long LONGEST_PAUSE_MS = 5_000;

    /** The task's writes could not reach the database within the patience: give the episode up. */
    static final class GaveUp extends RuntimeException {
        GaveUp(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String episodeId;
    private final Duration patience;
    private final BooleanSupplier stop;
    private final Runnable onRetry;

    /**
     * @param stop    true when the task must stop trying (drain, lease lost)
     * @param onRetry told before each new try (counts it)
     */
    WriteRetry(String episodeId, Duration patience, BooleanSupplier stop, Runnable onRetry) {
        this.episodeId = episodeId;
        this.patience = patience;
        this.stop = stop;
        this.onRetry = onRetry;
    }

    <T> T run(Supplier<String> what, Supplier<T> write) {
        long started = System.nanoTime();
        long pause = FIRST_PAUSE_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                return write.get();
            } catch (RuntimeException e) {
                if (!WriteFailures.retryable(e)) {
                    throw e;
                }
                long waited = (System.nanoTime() - started) / 1_000_000;
                if (waited + pause > patience.toMillis() || stop.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                    throw new GaveUp("Episode " + episodeId + ": " + what.get() + " failed " + attempt + " time(s) over " + waited
                            + " ms (patience " + patience.toMillis() + " ms); giving the episode up to recovery", e);
                }
                int tried = attempt;
                long next = pause;
                LOG.log(tried == 1 ? Level.WARNING : Level.FINE, e, () -> "Episode " + episodeId + ": " + what.get()
                        + " failed (try " + tried + "); trying again in " + next + " ms");
                onRetry.run();
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new GaveUp("Episode " + episodeId + ": interrupted while " + what.get() + " waited for the database", e);
                }
                pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
            }
        }
    }
}
