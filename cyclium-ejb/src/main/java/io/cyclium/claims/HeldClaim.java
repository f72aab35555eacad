package io.cyclium.claims;

/**
 * A lease this node holds, at the fence it was acquired with. {@link #lost()} turns true when the
 * heartbeat finds the lease gone (stolen after a pause, or released by a drain); the task checks it
 * before every step and aborts without touching the episode row.
 */
public final class HeldClaim {

    private final String key;
    private final long fence;
    private final boolean passthrough;
    private volatile boolean lost;

    public HeldClaim(String key, long fence, boolean passthrough) {
        this.key = key;
        this.fence = fence;
        this.passthrough = passthrough;
    }

    public static HeldClaim passthrough(String key) {
        return new HeldClaim(key, 0, true);
    }

    public String key() {
        return key;
    }

    public long fence() {
        return fence;
    }

    public boolean passthrough() {
        return passthrough;
    }

    public boolean lost() {
        return lost;
    }

    public void markLost() {
        lost = true;
    }

    @Override
    public String toString() {
        return passthrough ? "claim[" + key + ", passthrough]" : "claim[" + key + ", fence " + fence + (lost ? ", lost" : "") + "]";
    }
}
