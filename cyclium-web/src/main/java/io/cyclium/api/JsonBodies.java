package io.cyclium.api;

import io.cyclium.store.Jsons;
import io.cyclium.problem.Problem;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.util.regex.Pattern;

/**
 * Reads request bodies ourselves, so every malformed one gets a 400 naming the field at fault
 * (and nothing is created), instead of a provider's generic error.
 */
final class JsonBodies {

    static final int MAX_BODY_CHARS = 262_144;
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}");

    private JsonBodies() {
    }

    static JsonObject object(String body) {
        JsonValue value = value(body, "a JSON object is expected");
        if (!(value instanceof JsonObject o)) {
            throw Problem.invalid(null, "the request body must be a JSON object, not " + value.getValueType().name().toLowerCase());
        }
        return o;
    }

    /** The body's one JSON value, of any type; {@code expected} says what an empty body should have held. */
    static JsonValue value(String body, String expected) {
        if (body == null || body.isBlank()) {
            throw Problem.invalid(null, "the request body is empty: " + expected);
        }
        if (body.length() > MAX_BODY_CHARS) {
            throw Problem.invalid(null, "the request body has " + body.length() + " characters; at most "
                    + MAX_BODY_CHARS + " are accepted");
        }
        JsonValue value;
        try (JsonParser p = Jsons.provider().createParser(new StringReader(body))) {
            p.next();
            value = p.getValue();
            // a reader stops after the first value: "{} trailing" must not pass as "{}"
            if (hasMore(p)) {
                throw Problem.invalid(null, "the request body is not valid JSON: there is more after the JSON value");
            }
        } catch (JsonException | IllegalStateException | java.util.NoSuchElementException e) {
            throw Problem.invalid(null, "the request body is not valid JSON: " + firstLine(e.getMessage()));
        }
        return value;
    }

    /** A signal's body, {@code {"payload": <any JSON value>}}: its payload; 400 naming the field at fault. */
    static JsonValue signalPayload(String body) {
        JsonObject o = object(body);
        for (String field : o.keySet()) {
            if (!field.equals("payload")) {
                throw Problem.invalid(field, "unknown field \"" + field + "\": a signal's body is {\"payload\": <any JSON value>}");
            }
        }
        if (!o.containsKey("payload")) {
            throw Problem.invalid("payload", "\"payload\" is required (any JSON value, null included)");
        }
        return o.get("payload");
    }

    static String requiredName(JsonObject o, String field) {
        String v = optionalString(o, field);
        if (v == null || v.isBlank()) {
            throw Problem.invalid(field, "\"" + field + "\" is required");
        }
        if (!NAME.matcher(v).matches()) {
            throw Problem.invalid(field, "\"" + field + "\" must be 1-255 of letters, digits and _ . : -, starting with a"
                    + " letter or digit");
        }
        return v;
    }

    static String optionalString(JsonObject o, String field) {
        if (!o.containsKey(field) || o.isNull(field)) {
            return null;
        }
        JsonValue v = o.get(field);
        if (!(v instanceof JsonString s)) {
            throw Problem.invalid(field, "\"" + field + "\" must be a string, not " + v.getValueType().name().toLowerCase());
        }
        if (s.getString().length() > 255) {
            throw Problem.invalid(field, "\"" + field + "\" is longer than 255 characters");
        }
        return s.getString();
    }

    /** An optional integer field (null when absent or null); anything but an integer is a 400 naming the field. */
    static Integer optionalInt(JsonObject o, String field, int min, int max) {
        if (!o.containsKey(field) || o.isNull(field)) {
            return null;
        }
        JsonValue v = o.get(field);
        if (!(v instanceof jakarta.json.JsonNumber n) || !n.isIntegral()) {
            throw Problem.invalid(field, "\"" + field + "\" must be an integer, not " + v);
        }
        long value;
        try {
            value = n.longValueExact();
        } catch (ArithmeticException tooBig) {
            value = Long.MAX_VALUE;
        }
        if (value < min || value > max) {
            throw Problem.invalid(field, "\"" + field + "\" must be between " + min + " and " + max + ", not " + n);
        }
        return (int) value;
    }

    static JsonObject optionalObject(JsonObject o, String field) {
        if (!o.containsKey(field) || o.isNull(field)) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        JsonValue v = o.get(field);
        if (!(v instanceof JsonObject obj)) {
            throw Problem.invalid(field, "\"" + field + "\" must be a JSON object, not " + v.getValueType().name().toLowerCase());
        }
        return obj;
    }

    private static boolean hasMore(JsonParser p) {
        try {
            return p.hasNext();
        } catch (JsonException e) {
            return true; // the parser found a token where it expected the end
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
