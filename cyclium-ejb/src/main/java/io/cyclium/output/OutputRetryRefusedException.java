package io.cyclium.output;

/**
 * Only a {@code failed} output, or a {@code proposed} one whose episode has ended (left behind by a
 * run that died between the adapter and recording its answer), can be retried. A delivered one is
 * done; one proposed by an episode that still runs is delivered by that episode, and a retrying one
 * by another retry right now: a second delivery is exactly what the dedupe key exists to prevent.
 */
public class OutputRetryRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String outputId;
    private final String status;

    public OutputRetryRefusedException(String outputId, String status) {
        super("output " + outputId + " is " + status + (OutputStore.PROPOSED.equals(status)
                ? " by an episode that is still running, which delivers it; only a failed output, or a proposed one whose"
                        + " episode has ended, can be retried"
                : ", not failed: only a failed output, or a proposed one whose episode has ended, can be retried"));
        this.outputId = outputId;
        this.status = status;
    }

    public String outputId() {
        return outputId;
    }

    public String status() {
        return status;
    }
}
