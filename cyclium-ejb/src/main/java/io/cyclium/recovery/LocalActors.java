package io.cyclium.recovery;

import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.HeldClaim;
import io.cyclium.execution.RunControl;
import io.cyclium.episode.EpisodeStore;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * What the sweep, the drain and the heartbeat need from the actors running on this node. In the
 * container {@link HostLocalActors} answers from the node's {@code ActorHost}; a plain test answers
 * with the tasks and actors it pretends to run, so the logic classes need no container.
 */
public interface LocalActors {

    /** The node is going down: no restarts here. */
    boolean draining();

    /** Stops new triggers and refuses recovery restarts from now on (the drain's first move). */
    void beginDrain();

    /** Whether an actor with this id runs on this node now: started here and in full mode (not trigger-only, not disabled). */
    boolean runs(String actorId);

    /** Whether this node recovers orphans now: its mode is full (modes change at runtime) and it is not draining. */
    boolean sweeps();

    /** The recovery policy compiled into this deployment for the expectation, if the actor is known here. */
    Optional<RecoveryPolicy> compiledPolicy(String actorId, String expectationId);

    /**
     * The version of the expectation deployed on this node ({@code @Expectation(version)}), null when
     * it is unversioned or not here: recovery resumes a versioned episode only where its version is.
     */
    default String expectationVersion(String actorId, String expectationId) {
        return null;
    }

    /** Hands a recovered episode and the claim recovery took to its actor; false when the actor is not here. */
    boolean recover(String actorId, String episodeId, HeldClaim claim);

    /** {@link #recover} naming the episode's expectation, so that a pause of the expectation holds it too. */
    default boolean recover(String actorId, String expectationId, String episodeId, HeldClaim claim) {
        return recover(actorId, episodeId, claim);
    }

    /**
     * Resumes an episode whose wait or sleep this node resolved (phase resume_due, run node this
     * one) through its actor's slots; false when the actor is not here (the next sweep of a node
     * that runs it resumes it).
     */
    default boolean resume(String actorId, String expectationId, String episodeId) {
        return false;
    }

    /** The tasks running on this node now. */
    Collection<RunControl> localRunning();

    Optional<RunControl> localControl(String episodeId);

    /** Every lease a task, a queue entry or a hand-over on this node is using. */
    Set<HeldClaim> claimsInUse();

    /** The episodes a task, a slot or a queue of this node holds now. */
    Set<String> episodesHeld();

    /** The episode store once the actors have started; empty before. */
    Optional<EpisodeStore> store();
}
