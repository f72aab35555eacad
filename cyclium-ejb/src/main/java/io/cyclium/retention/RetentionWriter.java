package io.cyclium.retention;

import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/**
 * Applies one chunk: checks this node still holds the run's claim, then archives / purges /
 * prunes the chunk's keys and moves the step's checkpoint in one transaction of its own
 * ({@link RetentionChunks#write}). If the process dies after that commit and before the batch
 * runtime's checkpoint, the resumed run starts after our checkpoint; were a chunk ever applied
 * again, its guards would change nothing.
 */
@Named("retentionWriter")
@Dependent
public class RetentionWriter extends AbstractItemWriter {

    @Inject
    JobContext job;

    @Inject
    StepContext stepContext;

    @Inject
    RetentionRunner runner;

    @Inject
    Tx tx;

    @Inject
    Telemetry telemetry;

    @Override
    public void writeItems(List<Object> items) {
        String runId = RetentionJobListener.runId(job);
        RetentionStep step = RetentionStep.parse(stepContext.getStepName()).orElseThrow();
        runner.checkOwnership(runId);
        List<String> keys = items.stream().map(String::valueOf).toList();
        RetentionChunks.Chunk c = new RetentionChunks(tx, runner.store()).write(runId, step, runner.window(step), keys);
        switch (step) {
            case ARCHIVE_EPISODES -> telemetry.count("retention_archived", c.written());
            case PURGE_EPISODES -> telemetry.count("retention_purged", c.written());
            case PRUNE_CLAIMS -> telemetry.count("retention_pruned", c.written(), "table", "work_claims");
            case PRUNE_TRIGGER_REQUESTS -> telemetry.count("retention_pruned", c.written(), "table", "trigger_requests");
            case PRUNE_AUDIT -> telemetry.count("retention_pruned", c.written(), "table", "audit");
            case PRUNE_BULK_ACTIONS -> telemetry.count("retention_pruned", c.written(), "table", "bulk_actions");
            default -> throw new IllegalStateException(String.valueOf(step));
        }
    }
}
