package io.cyclium.runtime;

import java.util.Locale;

/**
 * What became of one match of an event (an expectation of an actor, or a workflow it starts): stored
 * in one way or another, or refused and why. The API answers 202 only when every match of the
 * request is {@link #stored()}.
 */
public enum Outcome {
    /** Its episode (or workflow instance) is stored by this request. */
    STORED(true),
    /** Its dedupe key (or the workflow's subject) already belongs to active work: that work stands for it. */
    COALESCED(true),
    /** Stored as the subject's pending debounced trigger; any node fires it when the window closes. */
    DEBOUNCED(true),
    /** Not stored: the subject cools down after an earlier episode ({@code retryAfter} says how long). */
    COOLING_DOWN(false),
    /** Not stored: every slot is busy and the actor drops overflow, or the circuit breaker is open. */
    DROPPED(false),
    /** Not stored: the node, or the actor on this node, is disabled. */
    DISABLED(false);

    private final boolean stored;

    Outcome(boolean stored) {
        this.stored = stored;
    }

    /** Whether the work this match asked for is stored (or already was). */
    public boolean stored() {
        return stored;
    }

    /** The name in API bodies: {@code stored}, {@code coalesced}, {@code cooling_down}, … */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
