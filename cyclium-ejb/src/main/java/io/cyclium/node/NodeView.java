package io.cyclium.node;

import java.time.LocalDateTime;

/**
 * What pages and JSON bodies see of a node row. Times are UTC. {@code runningEpisodes} and
 * {@code queuedEpisodes} count the running episodes whose row names this node (executing, or waiting
 * in its queue for a slot).
 */
public record NodeView(String nodeIdentity, String mode, String stackSlug, String env, LocalDateTime startedAt,
        LocalDateTime lastSeen, LocalDateTime stoppedAt, long runningEpisodes, long queuedEpisodes) {

    static NodeView of(NodeEntity n, long[] episodes) {
        return new NodeView(n.getNodeIdentity(), n.getMode(), n.getStackSlug(), n.getEnv(), n.getStartedAt(),
                n.getLastSeen(), n.getStoppedAt(), episodes[0], episodes[1]);
    }
}
