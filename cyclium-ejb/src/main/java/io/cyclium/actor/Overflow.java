package io.cyclium.actor;

/** What an actor does with a trigger when all of its slots on this node are busy. */
public enum Overflow {
    /** Insert the episode (marked queued) and run it when a slot frees. */
    QUEUE,
    /** Create nothing. */
    DROP,
    /** Cancel the oldest queued episode, then queue the new one. */
    SHED_OLDEST
}
