package io.cyclium.operations;

import io.cyclium.episode.EpisodeEntity;

import java.time.LocalDateTime;

/**
 * What pages and JSON bodies see of an episode: a copy, never the entity. Times are UTC.
 * {@code expectationVersion} is the version of its expectation it started with (null when
 * unversioned); {@code recoveryWaiting} says why recovery leaves it waiting (no node that swept it
 * deploys that version), null otherwise. {@code concurrencyKey} is its key under its expectation's
 * cluster-wide limit (null: none), {@code priority} its place in a queue (higher first), and
 * {@code queuedBecause} says, while it is queued under a cluster-wide limit, what holds
 * it ("key tenant-a at limit 2/2"); null otherwise. (A sleep or a wait for a signal is the episode
 * detail's {@code waiting}, beside this view.)
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
        String recoveryWaiting,
        String concurrencyKey,
        int priority,
        String queuedBecause) {

    /** Without flow control: no key, priority 0, queued for no reason beyond a free slot. */
    public EpisodeView(String id, String actorId, String expectationId, String triggerType, String dedupeKey, String status,
            String phase, int attempts, int maxAttempts, String runNode, String sourceStack, String sourceEnv, String summary,
            String errorClass, LocalDateTime startedAt, LocalDateTime finishedAt, String expectationVersion,
            String recoveryWaiting) {
        this(id, actorId, expectationId, triggerType, dedupeKey, status, phase, attempts, maxAttempts, runNode, sourceStack,
                sourceEnv, summary, errorClass, startedAt, finishedAt, expectationVersion, recoveryWaiting, null, 0, null);
    }

    /** The same episode, explained as queued because of {@code why}. */
    public EpisodeView withQueuedBecause(String why) {
        return new EpisodeView(id, actorId, expectationId, triggerType, dedupeKey, status, phase, attempts, maxAttempts, runNode,
                sourceStack, sourceEnv, summary, errorClass, startedAt, finishedAt, expectationVersion, recoveryWaiting,
                concurrencyKey, priority, why);
    }

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
                e.startedAt, e.finishedAt, e.expectationVersion, e.recoveryWaiting, e.concurrencyKey,
                e.priority == null ? 0 : e.priority, null);
    }
}
