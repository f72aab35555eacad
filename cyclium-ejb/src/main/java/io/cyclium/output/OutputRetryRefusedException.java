package io.cyclium.output;

/**
 * Only a {@code failed} output can be retried. A delivered one is done; a proposed or retrying one
 * is being delivered right now (by its episode or by another retry), and a second delivery is
 * exactly what the dedupe key exists to prevent.
 */
public class OutputRetryRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String outputId;
    private final String status;

    public OutputRetryRefusedException(String outputId, String status) {
        super("output " + outputId + " is " + status + ", not failed: only a failed output can be retried");
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
