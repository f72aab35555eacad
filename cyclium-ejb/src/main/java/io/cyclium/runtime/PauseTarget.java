package io.cyclium.runtime;

import io.cyclium.problem.Problem;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a pause holds: an actor (every expectation of it), one expectation ({@code actor/expectation})
 * or a workflow. The pair is the key of its row in {@code cyclium_pauses}.
 */
public record PauseTarget(Kind kind, String target) {

    public enum Kind {
        ACTOR, EXPECTATION, WORKFLOW;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind named {@code wire}; a 400 naming the allowed kinds otherwise. */
        public static Kind parse(String wire) {
            return Arrays.stream(values()).filter(k -> k.wire().equals(wire)).findFirst()
                    .orElseThrow(() -> Problem.invalid("kind", "unknown pause kind '" + wire
                            + "': allowed are actor, expectation, workflow"));
        }
    }

    /** Longest target the table stores (VARCHAR(512)). */
    static final int MAX_LENGTH = 512;

    public PauseTarget {
        if (kind == null || target == null || target.isBlank()) {
            throw Problem.invalid("target", "a pause names a kind and a non-empty target");
        }
        if (target.length() > MAX_LENGTH) {
            throw Problem.invalid("target", "a pause target is at most " + MAX_LENGTH + " characters, not " + target.length());
        }
    }

    public static PauseTarget actor(String actorId) {
        return new PauseTarget(Kind.ACTOR, actorId);
    }

    public static PauseTarget expectation(String actorId, String expectationId) {
        return new PauseTarget(Kind.EXPECTATION, actorId + "/" + expectationId);
    }

    public static PauseTarget workflow(String workflowId) {
        return new PauseTarget(Kind.WORKFLOW, workflowId);
    }
}
