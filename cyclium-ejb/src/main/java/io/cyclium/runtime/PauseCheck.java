package io.cyclium.runtime;

/** Whether work of an actor's expectation is held by a pause now (this node's copy of the table). */
@FunctionalInterface
public interface PauseCheck {

    PauseCheck NONE = (actor, expectation) -> false;

    /** {@code expectationId} null: only a pause of the whole actor counts (the expectation is not known). */
    boolean holds(String actorId, String expectationId);
}
