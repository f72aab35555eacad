package io.cyclium.node;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps a second live process from starting under an identity another one holds. Two processes
 * with one identity would each renew the other's leases, vouch for the other's queues and release
 * the other's work at boot: the cluster's guarantees all assume one process per identity.
 *
 * <p>A row that says its process did not stop and was seen within one heartbeat (plus a margin)
 * belongs either to a live process or to one that died a moment ago (kill -9, a crash) and is being
 * restarted. The two differ in one way only: a live one beats again. So the guard watches the row
 * for one heartbeat interval and a margin; if {@code last_seen} moves, the identity is taken and the
 * node refuses to start, saying so. A restart after a clean stop (the drain stamps {@code stopped_at})
 * or after more than that interval waits for nothing.
 */
public final class IdentityGuard {

    private static final Logger LOG = Logger.getLogger(IdentityGuard.class.getName());

    /** Thrown when another live process holds the identity. */
    public static final class IdentityInUse extends IllegalStateException {
        IdentityInUse(String message) {
            super(message);
        }
    }

    /** How the guard sleeps between reads (a test passes its own). */
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private final String node;
    private final Duration watch;
    private final Duration pollEvery;
    private final Sleeper sleeper;

    /**
     * @param heartbeat the interval at which a live holder writes {@code last_seen}
     */
    public IdentityGuard(String node, Duration heartbeat, Sleeper sleeper) {
        this.node = Objects.requireNonNull(node, "node");
        this.watch = heartbeat.plusSeconds(2);
        this.pollEvery = Duration.ofMillis(Math.max(50, Math.min(500, heartbeat.toMillis() / 4)));
        this.sleeper = sleeper;
    }

    /** Seconds within which a last write counts as recent: the watch window. */
    public long recentSeconds() {
        return Math.max(1, (watch.toMillis() + 999) / 1000);
    }

    /**
     * Returns when the identity is free; throws {@link IdentityInUse} when another process beats
     * under it. {@code read} reads the row (empty: no row).
     */
    public void check(Supplier<Optional<NodeStore.LastLife>> read) {
        Optional<NodeStore.LastLife> first = read.get();
        if (first.isEmpty() || first.get().stopped() || !first.get().recentlySeen()) {
            return;
        }
        Object seen = first.get().lastSeen();
        LOG.info(() -> "Node identity " + node + " was seen " + seen + " and did not stop (" + first.get().hostInfo()
                + "): watching it for " + watch.toMillis() + " ms to tell a process that died from a live one");
        long polls = Math.max(1, watch.toMillis() / pollEvery.toMillis());
        for (long i = 0; i < polls; i++) {
            try {
                sleeper.sleep(pollEvery);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while checking whether node identity " + node + " is in use", e);
            }
            Optional<NodeStore.LastLife> now = read.get();
            if (now.isPresent() && !now.get().stopped() && !Objects.equals(now.get().lastSeen(), seen)) {
                throw new IdentityInUse("Node identity " + node + " is in use by a live process (" + now.get().hostInfo()
                        + "): its heartbeat wrote last_seen " + seen + " and then " + now.get().lastSeen()
                        + " while this process waited to start. Give this node an identity of its own"
                        + " (cyclium.node-identity, or CYCLIUM_NODE_IDENTITY) or stop the other process first.");
            }
            if (now.isPresent() && now.get().stopped()) {
                return; // the other process stopped cleanly meanwhile
            }
        }
    }
}
