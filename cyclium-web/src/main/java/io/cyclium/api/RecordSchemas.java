package io.cyclium.api;

import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * OpenAPI schemas read off the response records themselves, so the document cannot drift from the
 * JSON that JSON-B writes (one property per record component, same name). Records named in
 * {@code names} are referenced; any other nested record is an error, so a new DTO must be named.
 */
final class RecordSchemas {

    private final Map<Class<?>, String> names;

    RecordSchemas(Map<Class<?>, String> names) {
        this.names = names;
    }

    JsonObject schemaOf(Class<?> record) {
        if (!record.isRecord()) {
            throw new IllegalArgumentException(record.getName() + " is not a record");
        }
        JsonObjectBuilder properties = Jsons.object();
        for (RecordComponent c : record.getRecordComponents()) {
            properties.add(c.getName(), typeOf(c.getGenericType()));
        }
        return Jsons.object().add("type", "object").add("properties", properties).build();
    }

    private JsonObject typeOf(Type type) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            return Jsons.object().add("type", "array").add("items", typeOf(p.getActualTypeArguments()[0])).build();
        }
        if (type instanceof ParameterizedType p && p.getRawType() == Map.class) {
            return Jsons.object().add("type", "object")
                    .add("additionalProperties", typeOf(p.getActualTypeArguments()[1])).build();
        }
        if (!(type instanceof Class<?> c)) {
            throw new IllegalArgumentException("no schema for " + type);
        }
        if (c == String.class) {
            return simple("string", null, true);
        }
        if (c == int.class || c == Integer.class) {
            return simple("integer", "int32", !c.isPrimitive());
        }
        if (c == long.class || c == Long.class) {
            return simple("integer", "int64", !c.isPrimitive());
        }
        if (c == double.class || c == Double.class) {
            return simple("number", "double", !c.isPrimitive());
        }
        if (c == boolean.class || c == Boolean.class) {
            return simple("boolean", null, !c.isPrimitive());
        }
        if (c == java.time.Instant.class) {
            return Jsons.object(simple("string", "date-time", true))
                    .add("description", "an instant, UTC with Z").build();
        }
        if (c == LocalDateTime.class) {
            return Jsons.object(simple("string", "date-time", true))
                    .add("description", "UTC, without an offset").build();
        }
        if (c == JsonObject.class) {
            return Jsons.object().add("type", "object").add("nullable", true).build();
        }
        if (c.isEnum()) {
            var values = Jsons.array();
            Arrays.stream(c.getEnumConstants()).forEach(e -> values.add(((Enum<?>) e).name()));
            return Jsons.object().add("type", "string").add("enum", values).build();
        }
        String name = names.get(c);
        if (name == null) {
            throw new IllegalArgumentException("no schema name for " + c.getName() + ": add it to the document's records");
        }
        return Jsons.object().add("$ref", "#/components/schemas/" + name).build();
    }

    private static JsonObject simple(String type, String format, boolean nullable) {
        JsonObjectBuilder b = Jsons.object().add("type", type);
        if (format != null) {
            b.add("format", format);
        }
        if (nullable) {
            b.add("nullable", true);
        }
        return b.build();
    }
}
