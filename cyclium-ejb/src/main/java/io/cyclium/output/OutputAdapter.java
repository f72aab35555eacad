package io.cyclium.output;

import jakarta.json.JsonObject;

/**
 * Delivers outputs of one type. Implement as a CDI bean; the router calls it only after the output
 * row won its unique key, so for a given dedupe key it is called once — unless a delivery failed
 * and an operator retries it explicitly. Adapters that reach external systems should pass
 * {@link Delivery#dedupeKey()} along as an idempotency key.
 */
public interface OutputAdapter {

    /** The output type this adapter handles. */
    String type();

    /**
     * Delivers; returns a reference to what was delivered (message id, row id, …). Throwing marks
     * the output failed with the exception's message.
     */
    String deliver(Delivery delivery) throws Exception;

    /** What the adapter gets: never an entity. */
    record Delivery(String outputId, String episodeId, String type, String dedupeKey, JsonObject payload, int attempt) {
    }
}
