package io.cyclium.audit;

import java.util.Arrays;
import java.util.Optional;

/** What an operator action was done to: the kind of thing the audit row's {@code subject_id} names. */
public enum SubjectKind {
    EPISODE("episode"),
    OUTPUT("output"),
    INSTANCE("instance"),
    WORKFLOW("workflow"),
    ACTOR("actor"),
    /** a node's mode (the subject id is the node's name) */
    NODE("node"),
    /** a retention run (the subject id is the run's id; a refused run has none) */
    RETENTION("retention"),
    /** a recovery sweep (the subject id is the scope swept: stack/env) */
    RECOVERY("recovery"),
    /** a bulk action by filter (the subject id is the action's id) */
    BULK("bulk");

    private final String wire;

    SubjectKind(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<SubjectKind> parse(String wire) {
        return Arrays.stream(values()).filter(k -> k.wire.equals(wire)).findFirst();
    }
}
