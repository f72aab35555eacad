package io.cyclium.cluster;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;

/** One HTTP answer from a node: status and body, with the body parsed on demand. */
public record HttpReply(int status, String body) {

    public JsonObject jsonObject() {
        try (JsonReader r = Json.createReader(new StringReader(body))) {
            return r.readObject();
        }
    }

    public JsonArray jsonArray() {
        try (JsonReader r = Json.createReader(new StringReader(body))) {
            return r.readArray();
        }
    }

    @Override
    public String toString() {
        return status + " " + (body.length() > 300 ? body.substring(0, 300) + "…" : body);
    }
}
