package io.cyclium.node;

import java.time.LocalDateTime;

/** What pages and JSON bodies see of a node row. Times are UTC. */
public record NodeView(String nodeIdentity, String mode, String stackSlug, String env, LocalDateTime startedAt,
        LocalDateTime lastSeen, LocalDateTime stoppedAt) {

    static NodeView of(NodeEntity n) {
        return new NodeView(n.getNodeIdentity(), n.getMode(), n.getStackSlug(), n.getEnv(), n.getStartedAt(),
                n.getLastSeen(), n.getStoppedAt());
    }
}
