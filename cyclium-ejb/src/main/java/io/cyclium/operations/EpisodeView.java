package io.cyclium.operations;

import io.cyclium.episode.EpisodeEntity;

import java.time.LocalDateTime;

/**
 * What pages and JSON bodies see of an episode: a copy, never the entity. Times are UTC.
 * {@code expectationVersion} is the version of its expectation it started with (null when
 * unversioned); {@code recoveryWaiting} says why recovery leaves it waiting (no node that swept it
 * deploys that version), null otherwise.
 */
public record EpisodeView(
        String id,
        String actorId,
        String expectationId,
        String triggerType,
        String dedupeKey,
        String status,
        String phase,
        int attempts,
        int maxAttempts,
        String runNode,
        String sourceStack,
        String sourceEnv,
        String summary,
        String errorClass,
        LocalDateTime startedAt,
        LocalDateTime finishedAt,
        String expectationVersion,
        String recoveryWaiting) {

    /** An unversioned episode that recovery does not hold back. */
    public EpisodeView(String id, String actorId, String expectationId, String triggerType, String dedupeKey, String status,
            String phase, int attempts, int maxAttempts, String runNode, String sourceStack, String sourceEnv, String summary,
            String errorClass, LocalDateTime startedAt, LocalDateTime finishedAt) {
        this(id, actorId, expectationId, triggerType, dedupeKey, status, phase, attempts, maxAttempts, runNode, sourceStack,
                sourceEnv, summary, errorClass, startedAt, finishedAt, null, null);
    }

    static EpisodeView of(EpisodeEntity e) {
        return new EpisodeView(e.id, e.actorId, e.expectationId, e.triggerType, e.dedupeKey, e.status, e.phase,
                e.attempts, e.maxAttempts, e.runNode, e.sourceStack, e.sourceEnv, e.summary, e.errorClass,
                e.startedAt, e.finishedAt, e.expectationVersion, e.recoveryWaiting);
    }
}
