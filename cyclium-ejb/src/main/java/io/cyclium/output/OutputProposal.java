package io.cyclium.output;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Objects;

/**
 * A side effect an episode wants delivered exactly once.
 *
 * @param type       selects the adapter (e.g. {@code log}, {@code database})
 * @param key        logical key within the episode; the dedupe key is derived from the episode's
 *                   own key (or id), the type and this key, so a restarted or stolen episode
 *                   derives the same one
 * @param dedupeKey  explicit dedupe key; wins over {@code key}; the node's env is appended
 * @param payload    what the adapter delivers
 */
public record OutputProposal(String type, String key, String dedupeKey, JsonObject payload) {

    public OutputProposal {
        Objects.requireNonNull(type, "type");
        payload = payload == null ? JsonValue.EMPTY_JSON_OBJECT : payload;
    }

    public static OutputProposal of(String type, String key, JsonObject payload) {
        return new OutputProposal(type, key, null, payload);
    }

    public static OutputProposal withDedupeKey(String type, String dedupeKey, JsonObject payload) {
        return new OutputProposal(type, null, dedupeKey, payload);
    }
}
