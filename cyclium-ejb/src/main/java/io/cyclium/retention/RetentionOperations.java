package io.cyclium.retention;

import io.cyclium.config.RetentionSettings;
import io.cyclium.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** What the console and the API may do with retention: read the windows and the runs, start a run. */
@ApplicationScoped
public class RetentionOperations {

    /** The configured windows, as ISO-8601 durations (purgeAfter null: purge is off). */
    public record Windows(boolean timerEnabled, String dailyAtUtc, String archiveAfter, String purgeAfter,
            String claimsAfter, String requestsAfter, String auditAfter, int chunkSize) {

        static Windows of(RetentionSettings s) {
            return new Windows(s.enabled(), s.dailyAt().toString(), s.archiveAfter().toString(),
                    s.purgeAfter().map(Object::toString).orElse(null), s.claimsAfter().toString(), s.requestsAfter().toString(), s.auditAfter().toString(),
                    s.chunkSize());
        }
    }

    /** A run this node has just started: its id, key and batch execution. */
    public record Started(String runId, String runKey, long batchExecutionId, String node) {
    }

    @Inject
    RetentionRunner runner;

    @Inject
    Tx tx;

    public Windows windows() {
        return Windows.of(runner.settings());
    }

    /** The newest runs of every node, each with its steps. */
    public List<RetentionQueries.Execution> executions(int limit) {
        return tx.inNewTransaction(em -> new RetentionQueries().recent(em, limit));
    }

    /** Starts a run on this node now; a {@code Problem} 409 while another run holds the day's claim. */
    public Started runNow(String requestedBy) {
        RetentionRunner.Start.Started s = runner.runNow(requestedBy);
        return new Started(s.runId(), s.runKey(), s.executionId(), runner.node());
    }
}
