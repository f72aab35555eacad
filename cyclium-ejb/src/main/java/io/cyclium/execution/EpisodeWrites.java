package io.cyclium.execution;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.StepKind;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What a running task writes about its episode, each change in one short transaction of its own:
 * journal rows (the step number is the row's key, so a step another owner already wrote is refused
 * rather than written twice), checkpoints, and the status changes. Every status change is guarded
 * on {@code running} in {@link io.cyclium.episode.EpisodeStore}: false from here means the episode
 * moved on under us (canceled, recovered, taken over) and whoever moved it owns what follows.
 */
final class EpisodeWrites {

    private static final Logger LOG = Logger.getLogger(EpisodeWrites.class.getName());

    /** The phase a blocked episode's checkpoint carries (approval or wait). */
    static final String BLOCKED_PHASE = "__blocked__";

    private final TaskEnvironment env;
    private final String episodeId;
    private int stepNo;

    EpisodeWrites(TaskEnvironment env, String episodeId, int firstStepNo) {
        this.env = env;
        this.episodeId = episodeId;
        this.stepNo = firstStepNo;
    }

    /** The number the next journal row will take. */
    int nextStepNo() {
        return stepNo;
    }

    /** One journal row; false when another owner already wrote this step. */
    boolean journal(String kind, JsonObject detail, String errorClass, String sideEffectKey, Long costMs) {
        int no = stepNo++;
        boolean written = env.tx().inNewTransaction(
                em -> env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, sideEffectKey, costMs));
        if (!written) {
            LOG.info(() -> "Episode " + episodeId + ": step " + no + " was already journaled by another owner");
        }
        return written;
    }

    /** The {@code resumed} marker: this attempt continues from the checkpoint (or from init when there is none). */
    boolean resumed(int attempt, Optional<Integer> fromCheckpoint) {
        JsonObject marker = Json.createObjectBuilder()
                .add("event", "resumed")
                .add("attempt", attempt)
                .add("fromCheckpoint", fromCheckpoint.map(n -> (JsonValue) Json.createValue(n)).orElse(JsonValue.NULL))
                .build();
        return journal(StepKind.RESUMED, marker, null, null, null);
    }

    /**
     * A checkpoint and its journal row together; returns the checkpoint's number (its step
     * number), or -1 when the step was taken by another owner.
     */
    int checkpoint(String stateJson, int stateVersion, String phase, String kind, JsonObject detail) {
        int no = stepNo++;
        boolean written = env.tx().inNewTransaction(em -> {
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                return false;
            }
            env.store().checkpoint(em, episodeId, no, phase, stateVersion, stateJson);
            return true;
        });
        return written ? no : -1;
    }

    /** Checkpoint, journal and status {@code blocked} in one transaction; false when the episode moved on. */
    boolean block(String stateJson, int stateVersion, String kind, JsonObject detail, int turns) {
        int cpNo = stepNo; // checkpoint numbers only need to grow; reuse the step number
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            env.store().checkpoint(em, episodeId, cpNo, BLOCKED_PHASE, stateVersion, stateJson);
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, null, null, null)) {
                return 0;
            }
            return env.store().block(em, episodeId, turns);
        });
        return updated == 1;
    }

    /**
     * The last journal row and the terminal status in one transaction. The journal row is guarded
     * too: a step another owner wrote means we are not the owner any more, and nothing is finished.
     */
    boolean finish(EpisodeStatus status, int turns, String summary, String errorClass, JsonObject detail) {
        String kind = status == EpisodeStatus.DONE || status == EpisodeStatus.PARTIALLY_FAILED
                ? StepKind.EPISODE_COMPLETED : StepKind.EPISODE_FAILED;
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            if (!env.store().journal(em, episodeId, no, kind, env.node(), detail, errorClass, null, null)) {
                return 0;
            }
            return env.store().finish(em, episodeId, status, turns, summary, errorClass, null);
        });
        return updated > 0;
    }

    /**
     * A failure or a cancel: journaled whatever happens (the row says why this attempt ended), the
     * status changed only while the episode is still running.
     */
    boolean end(EpisodeStatus status, int turns, String errorClass, String message, JsonObject detail) {
        int no = stepNo++;
        int updated = env.tx().inNewTransaction(em -> {
            env.store().journal(em, episodeId, no, StepKind.EPISODE_FAILED, env.node(), detail, errorClass, null, null);
            return env.store().finish(em, episodeId, status, turns, null, errorClass, message);
        });
        return updated == 1;
    }
}
