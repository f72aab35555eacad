package io.cyclium.actor;

/** What the recovery sweep does with an orphaned episode of an expectation. */
public enum RecoveryPolicy {
    /** Resume from the latest checkpoint (or init) on another node, up to max attempts. */
    RESTART,
    /** Mark it failed as orphaned. The default: side effects may not be repeatable. */
    FAIL
}
