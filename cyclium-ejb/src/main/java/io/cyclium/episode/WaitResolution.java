package io.cyclium.episode;

import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.util.function.Predicate;

/**
 * Resolves a sleeping or waiting episode inside the caller's transaction: the wait row's guard
 * first ({@link WaitStore}: 0 rows, another node, signal, event or timeout resolved it — nothing
 * to do), then the episode blocked → running with phase {@code resume_due} ({@link EpisodeStore#unblock}),
 * then the {@code wait_resolved} journal row the resumed run reads its result from. Lock order: the
 * wait row, the episode row, the journal — every resolver takes them in this order.
 *
 * <p>After the commit the caller resumes the episode here when its actor runs here ({@code runNode}
 * named this node); else the next recovery sweep of a node that runs it resumes it at once
 * ({@code resume_due} with no run node).
 */
public final class WaitResolution {

    /** How a resolver takes the wait row. */
    public enum Guard { DUE, NAMED, ANY }

    private final EpisodeStore episodes;
    private final WaitStore waits;

    public WaitResolution(EpisodeStore episodes, WaitStore waits) {
        this.episodes = episodes;
        this.waits = waits;
    }

    /**
     * True when this caller resolved the wait and the episode now waits to be resumed by
     * {@code runNode} (null: by the next sweep of a node that runs its actor). {@code name}: the
     * wait's name, for {@link Guard#NAMED}. A wait row left by an episode that is no longer blocked
     * (canceled, purged) is deleted and answers false.
     */
    public boolean resolve(EntityManager em, String episodeId, Guard guard, String name, JsonObject detail, String node,
            String runNode) {
        boolean released = switch (guard) {
            case DUE -> waits.releaseDue(em, episodeId);
            case NAMED -> waits.releaseNamed(em, episodeId, name);
            case ANY -> waits.release(em, episodeId);
        };
        if (!released) {
            return false;
        }
        if (episodes.unblock(em, episodeId, EpisodeStatus.RUNNING, runNode) == 0) {
            return false;
        }
        episodes.journal(em, episodeId, episodes.nextStepNo(em, episodeId), StepKind.WAIT_RESOLVED, node, detail, null,
                null, null);
        return true;
    }

    /** {@link #resolve} with the run node chosen from the actor: this node when {@code runsHere} says it runs it. */
    public boolean resolve(EntityManager em, WaitStore.WaitRow wait, Guard guard, JsonObject detail, String node,
            Predicate<String> runsHere) {
        return resolve(em, wait.episodeId(), guard, wait.name(), detail, node, runsHere.test(wait.actorId()) ? node : null);
    }

    /**
     * An event of type {@code name} with key {@code key}: resolves every episode waiting for that
     * name with that key (at most {@code limit}), each under its own guard; returns those resolved here.
     */
    public java.util.List<WaitStore.WaitRow> resolveKeyed(EntityManager em, String name, String key, JsonObject detail,
            String node, Predicate<String> runsHere, int limit) {
        java.util.List<WaitStore.WaitRow> resolved = new java.util.ArrayList<>();
        for (WaitStore.WaitRow w : waits.keyed(em, name, key, limit)) {
            if (resolve(em, w, Guard.NAMED, detail, node, runsHere)) {
                resolved.add(w);
            }
        }
        return resolved;
    }
}
