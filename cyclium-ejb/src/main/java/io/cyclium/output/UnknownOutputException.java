package io.cyclium.output;

/** No output has this id. */
public class UnknownOutputException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String outputId;

    public UnknownOutputException(String outputId) {
        super("no output with id " + outputId);
        this.outputId = outputId;
    }

    public String outputId() {
        return outputId;
    }
}
