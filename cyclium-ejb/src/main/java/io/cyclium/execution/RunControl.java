package io.cyclium.execution;

import io.cyclium.claims.HeldClaim;

/**
 * The signals a running task checks at every step boundary. Written by other threads (the API on a
 * cancel, the drainer at shutdown, the heartbeat when a lease is lost), read by the task.
 */
public final class RunControl {

    private final String episodeId;
    private volatile boolean cancelRequested;
    private volatile boolean stopRequested;
    private volatile HeldClaim claim;
    private volatile Thread thread;

    public RunControl(String episodeId) {
        this.episodeId = episodeId;
    }

    public String episodeId() {
        return episodeId;
    }

    public void requestCancel() {
        cancelRequested = true;
    }

    public boolean cancelRequested() {
        return cancelRequested;
    }

    /** The node is draining: stop at the next boundary and leave the row to recovery. */
    public void requestStop() {
        stopRequested = true;
    }

    public boolean stopRequested() {
        return stopRequested;
    }

    public HeldClaim claim() {
        return claim;
    }

    void claim(HeldClaim c) {
        this.claim = c;
    }

    public Thread thread() {
        return thread;
    }

    void thread(Thread t) {
        this.thread = t;
    }
}
