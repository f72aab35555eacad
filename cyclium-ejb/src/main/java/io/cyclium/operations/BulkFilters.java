package io.cyclium.operations;

import io.cyclium.store.JsonText;
import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link EpisodeFilter} in the names the episode list's query takes ({@code actor, expectation,
 * status, stack, env, from, to}), as a bulk action's body gives it and as its row stores it. Only
 * the fields set are written; times as ISO-8601 UTC ({@code 2026-11-30T07:00:00Z}).
 */
public final class BulkFilters {

    /** The names a filter object may have, in order. */
    public static final List<String> FIELDS = List.of("actor", "expectation", "status", "stack", "env", "from", "to");

    private BulkFilters() {
    }

    /**
     * The filter a JSON object names: every member must be one of {@link #FIELDS} with a string
     * value (400 naming {@code filter.<name>} otherwise), and at least one must be set — a bulk
     * action over every episode there is is never what an operator means.
     */
    public static EpisodeFilter parse(JsonObject o) {
        if (o == null) {
            throw io.cyclium.problem.Problem.invalid("filter", "filter is required: an object with at least one of " + FIELDS);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : o.entrySet()) {
            if (!FIELDS.contains(e.getKey())) {
                throw io.cyclium.problem.Problem.invalid("filter." + EpisodeFilter.shorten(e.getKey()), "filter has no field \""
                        + EpisodeFilter.shorten(e.getKey()) + "\": allowed are " + FIELDS);
            }
            if (e.getValue().getValueType() == JsonValue.ValueType.NULL) {
                continue;
            }
            if (e.getValue().getValueType() != JsonValue.ValueType.STRING) {
                throw io.cyclium.problem.Problem.invalid("filter." + e.getKey(), "filter." + e.getKey() + " must be a string");
            }
            String v = ((jakarta.json.JsonString) e.getValue()).getString();
            if (v.length() > 255) {
                throw io.cyclium.problem.Problem.invalid("filter." + e.getKey(), "filter." + e.getKey()
                        + " is longer than 255 characters");
            }
            values.put(e.getKey(), v);
        }
        EpisodeFilter filter = of(values);
        if (toMap(filter).isEmpty()) {
            throw io.cyclium.problem.Problem.invalid("filter", "a bulk action needs at least one filter (" + String.join(", ", FIELDS)
                    + "): it acts on every episode the filter matches");
        }
        return filter;
    }

    /** The filter of a map in {@link #FIELDS} names (the console's query parameters, a stored row). */
    public static EpisodeFilter of(Map<String, String> v) {
        try {
            return EpisodeFilter.parse(v.get("actor"), v.get("expectation"), v.get("status"), v.get("stack"), v.get("env"),
                    v.get("from"), v.get("to"));
        } catch (io.cyclium.problem.Problem p) {
            // EpisodeFilter names the query parameter; in a body it is a member of "filter"
            throw p.field() == null ? p : io.cyclium.problem.Problem.invalid("filter." + p.field(), p.getMessage());
        }
    }

    /** The fields set, in {@link #FIELDS} order. */
    public static Map<String, String> toMap(EpisodeFilter f) {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "actor", f.actorId());
        put(m, "expectation", f.expectationId());
        put(m, "status", f.status());
        put(m, "stack", f.stack());
        put(m, "env", f.env());
        put(m, "from", iso(f.startedFrom()));
        put(m, "to", iso(f.startedBefore()));
        return m;
    }

    public static String toJson(EpisodeFilter f) {
        JsonObjectBuilder b = Jsons.object();
        toMap(f).forEach(b::add);
        return JsonText.write(b.build());
    }

    /** A stored filter as the map the views show. */
    public static Map<String, String> fromJson(String json) {
        Map<String, String> m = new LinkedHashMap<>();
        if (json == null || json.isBlank()) {
            return m;
        }
        JsonText.parseObject(json).forEach((k, v) -> {
            if (v.getValueType() == JsonValue.ValueType.STRING) {
                m.put(k, ((jakarta.json.JsonString) v).getString());
            }
        });
        return m;
    }

    private static void put(Map<String, String> m, String k, String v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    private static String iso(LocalDateTime t) {
        return t == null ? null : t.atOffset(ZoneOffset.UTC).toInstant().toString();
    }
}
