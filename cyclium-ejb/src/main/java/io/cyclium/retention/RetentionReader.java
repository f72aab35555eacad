package io.cyclium.retention;

import io.cyclium.store.Tx;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Reads the keys a retention step changes, in key order, a page at a time. It starts after the
 * step's own checkpoint in {@code cyclium_retention_steps} — committed with the rows each chunk
 * changed — rather than the batch runtime's: that one is kept in the server's job repository,
 * which another node resuming the run may not share, and which commits after our chunk.
 */
@Named("retentionReader")
@Dependent
public class RetentionReader extends AbstractItemReader {

    @Inject
    JobContext job;

    @Inject
    StepContext stepContext;

    @Inject
    RetentionRunner runner;

    @Inject
    Tx tx;

    private RetentionChunks chunks;
    private RetentionStep step;
    private Duration window;
    private int pageSize;
    private String after;
    private boolean exhausted;
    private final Deque<String> page = new ArrayDeque<>();

    @Override
    public void open(Serializable batchCheckpoint) {
        String runId = RetentionJobListener.runId(job);
        step = RetentionStep.parse(stepContext.getStepName())
                .orElseThrow(() -> new IllegalStateException("unknown retention step " + stepContext.getStepName()));
        chunks = new RetentionChunks(tx, runner.store());
        window = runner.window(step);
        pageSize = runner.settings().chunkSize();
        boolean done = tx.inNewTransaction(em -> new RetentionQueries().execution(em, runId)).orElseThrow().steps().stream()
                .anyMatch(s -> s.step().equals(step.wire()) && s.status().equals(RunStatus.COMPLETED.wire()));
        // purge-after unset (the default): the step reads nothing; a step a resumed run completed before: nothing either
        exhausted = window == null || done;
        after = chunks.checkpoint(runId, step).orElse(null);
    }

    @Override
    public Object readItem() {
        if (page.isEmpty() && !exhausted) {
            List<String> keys = chunks.read(step, window, after, pageSize);
            page.addAll(keys);
            exhausted = keys.size() < pageSize;
        }
        String next = page.poll();
        if (next != null) {
            after = next;
        }
        return next;
    }

    @Override
    public Serializable checkpointInfo() {
        return after;
    }
}
