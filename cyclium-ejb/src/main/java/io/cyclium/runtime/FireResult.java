package io.cyclium.runtime;

/** What became of one trigger on this node. */
public record FireResult(Kind kind, String episodeId, String dedupeKey) {

    public enum Kind {
        /** Inserted and started here. */
        STARTED,
        /** Inserted, waiting for a slot (row marked queued). */
        QUEUED,
        /** Inserted with a trigger request: a full node will run it (trigger-only mode). */
        DEFERRED,
        /** The dedupe key is already taken by an active episode (another node or an earlier trigger). */
        DUPLICATE,
        /** All slots busy and the actor drops overflow. */
        DROPPED,
        /** The circuit breaker is open. */
        REJECTED_BY_BREAKER,
        /** The node is draining or the actor is not running here. */
        NOT_ACCEPTING
    }
}
