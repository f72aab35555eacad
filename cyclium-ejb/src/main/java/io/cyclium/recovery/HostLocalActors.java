package io.cyclium.recovery;

import io.cyclium.config.NodeMode;
import io.cyclium.node.NodeModes;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.execution.RunControl;
import io.cyclium.runtime.ActorHost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/** {@link LocalActors} answered by this node's {@link ActorHost}. */
@ApplicationScoped
public class HostLocalActors implements LocalActors {

    @Inject
    ActorHost host;

    @Inject
    NodeModes modes;

    @Override
    public boolean draining() {
        return host.draining();
    }

    @Override
    public void beginDrain() {
        host.beginDrain();
    }

    @Override
    public boolean runs(String actorId) {
        return host.runtime(actorId).isPresent() && modes.modeFor(actorId) == NodeMode.FULL;
    }

    @Override
    public boolean sweeps() {
        return modes.nodeMode() == NodeMode.FULL && !host.draining();
    }

    @Override
    public Optional<RecoveryPolicy> compiledPolicy(String actorId, String expectationId) {
        return host.definition(actorId).flatMap(a -> a.expectation(expectationId)).map(ExpectationDefinition::recovery);
    }

    @Override
    public String expectationVersion(String actorId, String expectationId) {
        return host.definition(actorId).flatMap(a -> a.expectation(expectationId)).map(ExpectationDefinition::version)
                .orElse(null);
    }

    @Override
    public boolean recover(String actorId, String episodeId, HeldClaim claim) {
        return host.recover(actorId, null, episodeId, claim);
    }

    @Override
    public boolean recover(String actorId, String expectationId, String episodeId, HeldClaim claim) {
        return host.recover(actorId, expectationId, episodeId, claim);
    }

    @Override
    public boolean resume(String actorId, String expectationId, String episodeId) {
        return host.runtime(actorId).map(rt -> {
            rt.resume(episodeId, expectationId);
            return true;
        }).orElse(false);
    }

    @Override
    public Collection<RunControl> localRunning() {
        return host.localRunning();
    }

    @Override
    public Optional<RunControl> localControl(String episodeId) {
        return host.localControl(episodeId);
    }

    @Override
    public Set<HeldClaim> claimsInUse() {
        return host.claimsInUse();
    }

    @Override
    public Set<String> episodesHeld() {
        return host.episodesHeld();
    }

    @Override
    public Optional<EpisodeStore> store() {
        return Optional.ofNullable(host.store());
    }
}
