package io.cyclium.telemetry;

import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One pass of a background loop — an EJB timer body, a scheduled or debounced trigger, a task on
 * an executor — run so that nothing escapes it. An exception thrown into an EJB timer makes the
 * container retry or cancel the timer, and one thrown on a scheduled executor silently ends that
 * schedule: either way the loop would stop for good over one bad row or one database hiccup. So a
 * failure is logged with what the loop was doing and what happens next, counted as
 * {@code <loop>_failed}, and the pass returns; the next tick tries again.
 *
 * <p>{@link LinkageError}s are caught as well (a class missing after a partial redeploy must not
 * end the loop); other {@link Error}s (out of memory) are not ours to swallow.
 */
public final class BackgroundPass {

    private static final String[] NO_TAGS = {};

    private BackgroundPass() {
    }

    /**
     * Runs {@code body}; returns false when it failed.
     *
     * @param loop    the loop's metric stem: a failure counts {@code <loop>_failed}
     * @param failure the log message for a failure: what failed and what happens next
     */
    public static boolean run(String loop, Logger log, Telemetry telemetry, Supplier<String> failure, Runnable body) {
        return run(loop, NO_TAGS, log, telemetry, failure, body);
    }

    /** As {@link #run(String, Logger, Telemetry, Supplier, Runnable)}, the failure counted with these tags. */
    public static boolean run(String loop, String[] tags, Logger log, Telemetry telemetry, Supplier<String> failure,
            Runnable body) {
        try {
            body.run();
            return true;
        } catch (RuntimeException | LinkageError e) {
            try {
                log.log(Level.WARNING, failure.get(), e);
                telemetry.count(loop + "_failed", tags);
            } catch (RuntimeException ignored) {
                // a broken logger or metric must not end the loop either
            }
            return false;
        }
    }
}
