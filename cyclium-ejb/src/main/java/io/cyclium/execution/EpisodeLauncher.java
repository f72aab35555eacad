package io.cyclium.execution;

import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import java.util.function.Consumer;

/**
 * The side of an actor's runtime that touches the database and the executor: the actor runtime
 * decides (slots, queue, breaker), a launcher does. {@link LocalRunner} is the container's.
 */
public interface EpisodeLauncher {

    /**
     * Inserts the row in the caller's transaction when there is one (a new one otherwise); false
     * when the dedupe key is taken. {@code settled} is told once that transaction has ended whether
     * the row is now committed and this call's — possibly before this method returns (no caller
     * transaction), possibly much later (host code's transaction), never twice. Only after
     * {@code settled(true)} may a task for it start: another thread would not see the row before.
     */
    boolean insert(NewEpisode episode, Consumer<Boolean> settled);

    /**
     * {@link #insert}, with {@code admission} taken in the same transaction once the row is in:
     * not admitted, the row is marked waiting in this node's queue (as {@link #markQueued} does),
     * still in that transaction.
     */
    default boolean insert(NewEpisode episode, InsertAdmission admission, Consumer<Boolean> settled) {
        throw new IllegalStateException("this launcher cannot admit episodes as it stores them: " + getClass().getName());
    }

    /** Starts a task for the episode on this node. */
    void start(String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim, Runnable exited);

    /** Cancels a queued episode that never started (shed_oldest). */
    void cancelQueued(String episodeId);

    /**
     * Records that this node holds the episode in its queue (run_node, queued_at), so the
     * heartbeat vouches for it and the sweep does not mistake a wait for a slot for a death.
     */
    default void markQueued(String episodeId) {
    }

    /**
     * Trigger-only: inserts the episode row (so UIs see it) and a trigger request for a full
     * node, in one transaction (the caller's when there is one); false when the dedupe key is taken.
     * {@code settled} is told once, as for {@link #insert}, whether both rows are now committed and
     * this call's.
     */
    default boolean defer(NewEpisode episode, Consumer<Boolean> settled) {
        throw new IllegalStateException("this launcher cannot defer episodes: " + getClass().getName());
    }

    /**
     * Gives up a lease handed over with an episode that will not run with it (already queued or
     * running here, or the executor refused it). Left held, the heartbeat would renew it for
     * ever and no node could recover the episode.
     */
    void releaseClaim(HeldClaim claim, String why);

    /** An episode that will not start here after all (canceled in the queue): its first lease goes. */
    default void dropFirstLease(String episodeId, String why) {
    }

    /**
     * Stores a subject's debounced trigger (or replaces the pending one, restarting its window) in
     * the caller's transaction when there is one, a new one otherwise: when this returns, a node
     * that dies takes nothing with it, and any node's timer fires the row once its window closes.
     */
    default void debounce(DebouncedTrigger trigger) {
        throw new IllegalStateException("this launcher cannot store debounced triggers: " + getClass().getName());
    }

    /** Trigger-only: asks a full node to run an existing episode (e.g. after an approval). */
    default void deferExisting(String episodeId, String actorId, String expectationId, boolean resume) {
        throw new IllegalStateException("this launcher cannot defer episodes: " + getClass().getName());
    }
}
