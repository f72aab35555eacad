package io.cyclium.recovery;

import io.cyclium.actor.RecoveryPolicy;
import java.util.Optional;

/**
 * Implement as a CDI bean to decide the recovery policy of episodes whose actor is neither compiled
 * into this deployment nor described by a row in {@code cyclium_actor_definitions}.
 */
public interface RecoveryPolicyResolver {
    Optional<RecoveryPolicy> policyFor(Orphan episode);
}
