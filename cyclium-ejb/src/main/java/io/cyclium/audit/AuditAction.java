package io.cyclium.audit;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every operator action the audit trail records, with the kind of thing it acts on. The wire name
 * is the {@code action} column and the {@code action} filter of {@code GET /api/audit}.
 */
public enum AuditAction {
    EPISODE_START("episode.start", SubjectKind.EPISODE),
    EPISODE_CANCEL("episode.cancel", SubjectKind.EPISODE),
    EPISODE_RESTART("episode.restart", SubjectKind.EPISODE),
    EPISODE_APPROVE("episode.approve", SubjectKind.EPISODE),
    EPISODE_DENY("episode.deny", SubjectKind.EPISODE),
    EPISODE_RESOLVE_WAIT("episode.resolve-wait", SubjectKind.EPISODE),
    EPISODE_SIGNAL("episode.signal", SubjectKind.EPISODE),
    OUTPUT_RETRY("output.retry", SubjectKind.OUTPUT),
    NODE_MODE("node.mode", SubjectKind.NODE),
    ACTOR_MODE("actor.mode", SubjectKind.ACTOR),
    ACTOR_MODE_CLEAR("actor.mode-clear", SubjectKind.ACTOR),
    ACTOR_PAUSE("actor.pause", SubjectKind.ACTOR),
    ACTOR_RESUME("actor.resume", SubjectKind.ACTOR),
    /** the subject id is {@code actor/expectation} */
    EXPECTATION_PAUSE("expectation.pause", SubjectKind.ACTOR),
    EXPECTATION_RESUME("expectation.resume", SubjectKind.ACTOR),
    RETENTION_RUN("retention.run", SubjectKind.RETENTION),
    RECOVERY_SWEEP("recovery.sweep", SubjectKind.RECOVERY),
    WORKFLOW_PUT("workflow.put", SubjectKind.WORKFLOW),
    WORKFLOW_ENABLE("workflow.enable", SubjectKind.WORKFLOW),
    WORKFLOW_DISABLE("workflow.disable", SubjectKind.WORKFLOW),
    WORKFLOW_START("workflow.start", SubjectKind.WORKFLOW),
    WORKFLOW_PAUSE("workflow.pause", SubjectKind.WORKFLOW),
    WORKFLOW_RESUME("workflow.resume", SubjectKind.WORKFLOW),
    INSTANCE_CANCEL("instance.cancel", SubjectKind.INSTANCE),
    INSTANCE_RESUME("instance.resume", SubjectKind.INSTANCE),
    INSTANCE_STEP_RETRY("instance.step-retry", SubjectKind.INSTANCE),
    INSTANCE_STEP_APPROVE("instance.step-approve", SubjectKind.INSTANCE),
    /** a bulk action accepted (the subject id is the action's; the detail says what, how many, which filter) */
    BULK_START("bulk.start", SubjectKind.BULK),
    /** a running bulk action canceled (the detail says how many items it skipped, how many were done before) */
    BULK_CANCEL("bulk.cancel", SubjectKind.BULK),
    INSTANCE_SIGNAL("instance.signal", SubjectKind.INSTANCE);

    private final String wire;
    private final SubjectKind subject;

    AuditAction(String wire, SubjectKind subject) {
        this.wire = wire;
        this.subject = subject;
    }

    public String wire() {
        return wire;
    }

    public SubjectKind subject() {
        return subject;
    }

    public static Optional<AuditAction> parse(String wire) {
        return Arrays.stream(values()).filter(a -> a.wire.equals(wire)).findFirst();
    }
}
