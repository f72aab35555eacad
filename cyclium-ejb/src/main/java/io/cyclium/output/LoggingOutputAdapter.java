package io.cyclium.output;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.logging.Logger;

/** Output type {@value #TYPE}: writes the output to the server log at INFO. */
@ApplicationScoped
public class LoggingOutputAdapter implements OutputAdapter {

    public static final String TYPE = "log";

    private static final Logger LOG = Logger.getLogger(LoggingOutputAdapter.class.getName());

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public String deliver(Delivery delivery) {
        LOG.info(() -> "Output of episode " + delivery.episodeId() + ", dedupe key " + delivery.dedupeKey()
                + ", attempt " + delivery.attempt() + ": " + delivery.payload());
        return "log:" + delivery.outputId();
    }
}
