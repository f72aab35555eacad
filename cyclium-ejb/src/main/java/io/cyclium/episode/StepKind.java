package io.cyclium.episode;

/** Journal entry kinds. */
public final class StepKind {
    public static final String OBSERVATION = "observation";
    public static final String CHECKPOINT = "checkpoint";
    public static final String OUTPUT_PROPOSED = "output_proposed";
    public static final String OUTPUT_DELIVERED = "output_delivered";
    public static final String OUTPUT_FAILED = "output_failed";
    public static final String APPROVAL_REQUESTED = "approval_requested";
    public static final String APPROVAL_RESOLVED = "approval_resolved";
    public static final String WAIT_STARTED = "wait_started";
    public static final String WAIT_RESOLVED = "wait_resolved";
    public static final String FINDING_RAISED = "finding_raised";
    public static final String FINDING_UPDATED = "finding_updated";
    public static final String FINDING_CLEARED = "finding_cleared";
    public static final String EPISODE_COMPLETED = "episode_completed";
    public static final String EPISODE_FAILED = "episode_failed";
    public static final String INTERRUPTED = "interrupted";
    public static final String RESUMED = "resumed";
    /** An operator restarted a failed or canceled episode; the next run resumes from its latest checkpoint. */
    public static final String RESTARTED = "restarted";
    /** A failed episode will be tried again as a new episode: attempt, error class, when. */
    public static final String RETRY_SCHEDULED = "retry_scheduled";
    /** The next attempt of a failed episode exists: its episode id. */
    public static final String RETRY_STARTED = "retry_started";

    private StepKind() {
    }
}
