package io.cyclium.store;

import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.io.StringReader;

/** One shared JSON-B instance and small JSON-P helpers for the text columns that hold JSON. */
public final class JsonText {

    private static volatile Jsonb jsonb;

    private JsonText() {
    }

    public static Jsonb jsonb() {
        Jsonb j = jsonb;
        if (j == null) {
            synchronized (JsonText.class) {
                if (jsonb == null) {
                    jsonb = JsonbBuilder.create();
                }
                j = jsonb;
            }
        }
        return j;
    }

    public static JsonValue parse(String text) {
        if (text == null || text.isBlank()) {
            return JsonValue.NULL;
        }
        try (JsonReader r = Jsons.reader(new StringReader(text))) {
            return r.readValue();
        }
    }

    public static JsonObject parseObject(String text) {
        JsonValue v = parse(text);
        return v instanceof JsonObject o ? o : JsonValue.EMPTY_JSON_OBJECT;
    }

    public static String write(JsonValue value) {
        return value == null ? null : value.toString();
    }
}
