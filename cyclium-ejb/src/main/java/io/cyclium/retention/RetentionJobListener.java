package io.cyclium.retention;

import jakarta.batch.api.listener.JobListener;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/** Settles the run (status, claim, counters) when the batch job ends, however it ends. */
@Named("retentionJobListener")
@Dependent
public class RetentionJobListener implements JobListener {

    @Inject
    JobContext job;

    @Inject
    RetentionRunner runner;

    @Override
    public void beforeJob() {
    }

    @Override
    public void afterJob() {
        runner.finished(runId(job));
    }

    /** The run this execution drives: the job parameter {@code runId}. */
    static String runId(JobContext job) {
        String id = BatchRuntime.getJobOperator().getParameters(job.getExecutionId()).getProperty("runId");
        if (id == null) {
            throw new IllegalStateException("retention job execution " + job.getExecutionId() + " has no runId parameter");
        }
        return id;
    }
}
