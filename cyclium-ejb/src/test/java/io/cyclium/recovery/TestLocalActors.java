package io.cyclium.recovery;

import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.execution.RunControl;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The actors and tasks a test pretends this node runs: which actors are here (with their compiled
 * recovery policy), which tasks run, and what was handed over to them.
 */
final class TestLocalActors implements LocalActors {

    /** A recovered episode handed to its actor with the claim recovery took. */
    record Handover(String actorId, String episodeId, HeldClaim claim) {
    }

    private final Map<String, RecoveryPolicy> actors = new HashMap<>();
    private final Map<String, RecoveryPolicy> knownElsewhere = new HashMap<>();
    private final Map<String, String> versions = new HashMap<>();
    private final Map<String, RunControl> running = new HashMap<>();
    private final Set<HeldClaim> inUse = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<String> queued = new java.util.HashSet<>();
    final List<Handover> handovers = new ArrayList<>();
    /** Episodes whose wait or sleep this node resolved and resumed through their actor. */
    final List<String> resumed = new java.util.concurrent.CopyOnWriteArrayList<>();
    private EpisodeStore store;
    private boolean draining;
    private boolean triggerOnly;

    /** An actor running here whose expectations recover with {@code policy}. */
    TestLocalActors runs(String actorId, RecoveryPolicy policy) {
        actors.put(actorId, policy);
        return this;
    }

    /** An actor compiled into this deployment that does not run on this node (another stack). */
    TestLocalActors compiledButNotHere(String actorId, RecoveryPolicy policy) {
        knownElsewhere.put(actorId, policy);
        return this;
    }

    /** This node deploys {@code version} of the actor's expectation (any expectation of it, here). */
    TestLocalActors deploys(String actorId, String version) {
        versions.put(actorId, version);
        return this;
    }

    @Override
    public String expectationVersion(String actorId, String expectationId) {
        return versions.get(actorId);
    }

    /** A task running here for {@code episodeId}. */
    RunControl task(String episodeId) {
        return running.computeIfAbsent(episodeId, RunControl::new);
    }

    /** An episode waiting in an actor's queue here. */
    void queues(String episodeId) {
        queued.add(episodeId);
    }

    @Override
    public Set<String> episodesHeld() {
        Set<String> held = new java.util.HashSet<>(queued);
        held.addAll(running.keySet());
        return held;
    }

    /** A lease some task or queue entry here is using. */
    void using(HeldClaim claim) {
        inUse.add(claim);
    }

    /** The node switched to trigger-only (or back to full, false). */
    TestLocalActors triggerOnly(boolean on) {
        this.triggerOnly = on;
        return this;
    }

    @Override
    public boolean sweeps() {
        return !triggerOnly && !draining;
    }

    TestLocalActors started(EpisodeStore store) {
        this.store = store;
        return this;
    }

    @Override
    public boolean draining() {
        return draining;
    }

    @Override
    public void beginDrain() {
        draining = true;
    }

    @Override
    public boolean runs(String actorId) {
        return actors.containsKey(actorId);
    }

    @Override
    public Optional<RecoveryPolicy> compiledPolicy(String actorId, String expectationId) {
        return Optional.ofNullable(actors.getOrDefault(actorId, knownElsewhere.get(actorId)));
    }

    @Override
    public boolean recover(String actorId, String episodeId, HeldClaim claim) {
        if (!actors.containsKey(actorId)) {
            return false;
        }
        handovers.add(new Handover(actorId, episodeId, claim));
        return true;
    }

    @Override
    public boolean resume(String actorId, String expectationId, String episodeId) {
        if (!actors.containsKey(actorId)) {
            return false;
        }
        resumed.add(episodeId);
        return true;
    }

    @Override
    public Collection<RunControl> localRunning() {
        return running.values();
    }

    @Override
    public Optional<RunControl> localControl(String episodeId) {
        return Optional.ofNullable(running.get(episodeId));
    }

    @Override
    public Set<HeldClaim> claimsInUse() {
        return inUse;
    }

    @Override
    public Optional<EpisodeStore> store() {
        return Optional.ofNullable(store);
    }
}
