package io.cyclium.retention;

import io.cyclium.node.NodeIdentity;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.batch.api.listener.StepListener;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Marks a step running, then completed, skipped (purge off) or failed in {@code cyclium_retention_steps}. */
@Named("retentionStepListener")
@Dependent
public class RetentionStepListener implements StepListener {

    private static final Logger LOG = Logger.getLogger(RetentionStepListener.class.getName());

    @Inject
    JobContext job;

    @Inject
    StepContext stepContext;

    @Inject
    RetentionRunner runner;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    Telemetry telemetry;

    @Override
    public void beforeStep() {
        RetentionStep step = RetentionStep.parse(stepContext.getStepName()).orElseThrow();
        String runId = RetentionJobListener.runId(job);
        tx.run(em -> runner.store().startStep(em, runId, step, identity.name()));
    }

    @Override
    public void afterStep() {
        RetentionStep step = RetentionStep.parse(stepContext.getStepName()).orElseThrow();
        String runId = RetentionJobListener.runId(job);
        Exception failure = stepContext.getException();
        RunStatus status = failure != null ? RunStatus.FAILED
                : runner.window(step) == null ? RunStatus.SKIPPED : RunStatus.COMPLETED;
        if (failure != null) {
            LOG.log(Level.WARNING, "Retention run " + runId + ", step " + step.wire() + " failed on " + identity.name()
                    + "; the rows done so far stay done, the next run continues after its checkpoint", failure);
            telemetry.count("retention_failed", "stage", step.wire());
        }
        tx.run(em -> runner.store().finishStep(em, runId, step, status));
        if (step == RetentionStep.ARCHIVE_EPISODES && status == RunStatus.COMPLETED) {
            // the purge step comes next: plan it on today's archive, not yesterday's statistics
            try {
                tx.run(em -> runner.store().refreshStatisticsAfterArchive(em));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Retention run " + runId + ": analyzing cyclium_episodes after the archive failed on "
                        + identity.name() + "; the purge runs on older statistics (slower, not wrong)", e);
            }
        }
    }
}
