package io.cyclium.workflow;

/** What a critical step's final failure does to its instance. */
public enum FailurePolicy {
    /** The instance fails; its running steps are asked to cancel and pending ones never start. */
    ABORT,
    /** The instance is blocked until an operator resumes it or retries the step. */
    PAUSE;

    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
