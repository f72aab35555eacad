package io.cyclium.episode;

import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.time.Instant;

/**
 * What started an episode, as stored in {@code trigger_ref} (JSON) and handed to
 * {@link Strategy#init}. {@code payload} is the event payload, the manual start's payload or the
 * workflow step's input; {@code scheduledFor} is the bucket start or cron tick.
 */
public record TriggerInfo(String type, String eventType, String eventId, JsonObject payload, Instant scheduledFor) {

    public static final String EVENT = "event";
    public static final String SCHEDULE = "schedule";
    public static final String CRON = "cron";
    public static final String MANUAL = "manual";
    public static final String WORKFLOW = "workflow";

    public TriggerInfo {
        payload = payload == null ? JsonValue.EMPTY_JSON_OBJECT : payload;
    }

    public JsonObject toJson() {
        JsonObjectBuilder b = Jsons.object().add("type", type);
        if (eventType != null) {
            b.add("eventType", eventType);
        }
        if (eventId != null) {
            b.add("eventId", eventId);
        }
        if (scheduledFor != null) {
            b.add("scheduledFor", scheduledFor.toString());
        }
        return b.add("payload", payload).build();
    }

    public static TriggerInfo fromJson(JsonObject o) {
        return new TriggerInfo(o.getString("type", MANUAL), o.getString("eventType", null), o.getString("eventId", null),
                o.containsKey("payload") && o.get("payload") instanceof JsonObject p ? p : JsonValue.EMPTY_JSON_OBJECT,
                o.containsKey("scheduledFor") ? Instant.parse(o.getString("scheduledFor")) : null);
    }
}
