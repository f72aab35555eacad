package io.cyclium.retry;

import java.util.Optional;

/**
 * Starts the next attempt of a failed episode as a new episode with the given dedupe key (the
 * container's is {@code RuntimeRetryLauncher}, over the actor runtime, so mode, slots, queue and
 * breaker apply like any trigger).
 */
public interface RetryLauncher {

    enum Kind {
        /** A new episode was created (started, queued or deferred). */
        CREATED,
        /** An episode with that key already exists: an earlier start of this attempt got through. */
        DUPLICATE,
        /** Nothing was created here (actor not on this node, breaker open, not accepting): try later. */
        NOT_NOW
    }

    record Launch(Kind kind, Optional<String> episodeId, String why) {
    }

    Launch launch(EpisodeRetryQueries.DueRetry failed, String dedupeKey);
}
