package io.cyclium.actor;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Objects;

/**
 * An event on the Cyclium bus. Host code fires it as a CDI event ({@code @Inject Event<CycliumEvent>});
 * {@code POST /cyclium/api/events} fires the same. Send a stable {@code id} when the event has one:
 * every node computes the dedupe key from it (or, without one, from a canonical hash of type and
 * payload), never from anything random.
 */
public record CycliumEvent(String type, String id, JsonObject payload) {

    public CycliumEvent {
        Objects.requireNonNull(type, "type");
        payload = payload == null ? JsonValue.EMPTY_JSON_OBJECT : payload;
    }
}
