package io.cyclium.actor.trigger;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;

/** Parses JSON text in tests, the way each node would parse what arrives on the wire. */
public final class TestJson {

    private TestJson() {
    }

    public static JsonValue value(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }

    public static JsonObject object(String text) {
        return value(text).asJsonObject();
    }
}
