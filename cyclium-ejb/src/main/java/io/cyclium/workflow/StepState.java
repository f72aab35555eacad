package io.cyclium.workflow;

/** Step states as stored: pending → queued → running → completed | failed, failed → queued on retry. */
public final class StepState {

    public static final String PENDING = "pending";
    public static final String QUEUED = "queued";
    public static final String RUNNING = "running";
    public static final String COMPLETED = "completed";
    public static final String FAILED = "failed";

    private StepState() {
    }
}
