package io.cyclium.output;

import jakarta.json.JsonObject;

/**
 * Delivers outputs of one type. Implement as a CDI bean; the router calls it only after the output
 * row won its unique key. Usually that is once per dedupe key, but a node can die after the
 * adapter was called and before its answer was recorded: the episode's next run then calls the
 * adapter again with the same {@link Delivery#dedupeKey()} (an operator's retry of a failed
 * output too). The contract is therefore <b>at least once per key</b>: an adapter must treat a
 * second delivery with a key it has seen as done — pass the key along as the external system's
 * idempotency key, or keep it unique where you store. Then each output takes effect once.
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
