package io.cyclium.actor;

import io.cyclium.keys.CanonicalJson;

import io.cyclium.store.Jsons;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParsingException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The payload condition of an event expectation: every listed field must have one of the expected
 * values for the event to trigger the expectation.
 *
 * <p>A field is named by a path; dots reach into nested objects, so {@code resource.kind} is the
 * {@code kind} member of the {@code resource} object. A field that is absent, or a path that runs
 * into something other than an object, never matches, not even an expected {@code null}.
 *
 * <p>Values are compared as JSON values: a string only matches a string, a number only a number.
 * Numbers compare by value ({@code 10}, {@code 10.0} and {@code 1e1} are equal), objects and
 * arrays by their {@linkplain CanonicalJson canonical form}.
 *
 * <p>Build a filter from a map ({@link #of(Map)}, with {@link #in(Object...)} for alternatives) or
 * from the text entries used in annotations ({@link #parse(String...)}):
 * <ul>
 *   <li>{@code kind=cpu} - the field equals the value;
 *   <li>{@code kind in (cpu, memory)} - the field equals any of the values.
 * </ul>
 * In the text form a value is a JSON number, {@code true}, {@code false} or {@code null}
 * (lowercase, as in JSON), a quoted JSON string (needed for commas, parentheses or surrounding
 * spaces in an "in" list), or else bare text taken as a string. So {@code limit=10} matches the number 10 but
 * not the string {@code "10"}; write {@code limit="10"} for that.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class PayloadFilter {

    private static final PayloadFilter EMPTY = new PayloadFilter(List.of());

    private static final Pattern IN_ENTRY =
            Pattern.compile("([^\\s=()\"]+)\\s+[iI][nN]\\s*\\((.*)\\)", Pattern.DOTALL);

    private static final Pattern JSON_NUMBER =
            Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

    /** Alternatives for one field, made by {@link PayloadFilter#in(Object...)}. */
    public static final class In {
        private final List<JsonValue> values;

        private In(List<JsonValue> values) {
            this.values = values;
        }

        /** The accepted values, in the order given. */
        public List<JsonValue> values() {
            return values;
        }

        @Override
        public String toString() {
            return "in(" + values.stream().map(CanonicalJson::canonical).collect(Collectors.joining(", ")) + ")";
        }
    }

    private record Condition(String path, List<String> segments, List<JsonValue> accepted, boolean in) {

        boolean matches(JsonObject payload) {
            JsonValue current = payload;
            for (String segment : segments) {
                if (!(current instanceof JsonObject object) || !object.containsKey(segment)) {
                    return false;
                }
                current = object.get(segment);
            }
            for (JsonValue expected : accepted) {
                if (sameValue(expected, current)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            if (!in) {
                return path + "=" + CanonicalJson.canonical(accepted.get(0));
            }
            return path + " in (" + accepted.stream().map(CanonicalJson::canonical)
                    .collect(Collectors.joining(", ")) + ")";
        }
    }

    private final List<Condition> conditions;

    private PayloadFilter(List<Condition> conditions) {
        this.conditions = conditions;
    }

    /** A filter with no conditions: every payload matches. */
    public static PayloadFilter none() {
        return EMPTY;
    }

    /**
     * A filter from field paths to expected values. A value may be a {@link JsonValue}, a
     * {@link String}, a {@link Number}, a {@link Boolean}, {@code null} (JSON null), or an
     * {@link In} made by {@link #in(Object...)}.
     *
     * @throws IllegalArgumentException for a malformed path or a value of another type
     */
    public static PayloadFilter of(Map<String, ?> expected) {
        Objects.requireNonNull(expected, "expected");
        List<Condition> conditions = new ArrayList<>();
        for (Map.Entry<String, ?> entry : expected.entrySet()) {
            String path = entry.getKey();
            List<String> segments = segments(path, "payload filter path \"" + path + "\"");
            if (entry.getValue() instanceof In in) {
                conditions.add(new Condition(path, segments, in.values(), true));
            } else {
                JsonValue value = toJson(entry.getValue(), "payload filter value for \"" + path + "\"");
                conditions.add(new Condition(path, segments, List.of(value), false));
            }
        }
        return conditions.isEmpty() ? EMPTY : new PayloadFilter(List.copyOf(conditions));
    }

    /**
     * Alternatives for one field in {@link #of(Map)}: the field matches when it equals any of
     * them. Accepts the same value types as {@link #of(Map)} except another {@code In}.
     */
    public static In in(Object... values) {
        Objects.requireNonNull(values, "values");
        if (values.length == 0) {
            throw new IllegalArgumentException("payload filter in(...) needs at least one value");
        }
        List<JsonValue> json = new ArrayList<>();
        for (Object value : values) {
            if (value instanceof In) {
                throw new IllegalArgumentException("payload filter in(...) cannot contain another in(...)");
            }
            json.add(toJson(value, "payload filter in(...) value"));
        }
        return new In(List.copyOf(json));
    }

    /**
     * A filter from text entries such as {@code "kind=cpu"}, {@code "kind in (cpu, memory)"} or
     * {@code "resource.limit=10"}. Each entry is one condition; all must hold.
     *
     * @throws IllegalArgumentException naming the entry that cannot be parsed, or whose path
     *     already has a condition
     */
    public static PayloadFilter parse(String... entries) {
        Objects.requireNonNull(entries, "entries");
        Map<String, Object> expected = new LinkedHashMap<>();
        for (String entry : entries) {
            if (entry == null) {
                throw new IllegalArgumentException("payload filter entry must not be null");
            }
            String text = entry.strip();
            String path;
            Object value;
            Matcher in = IN_ENTRY.matcher(text);
            if (in.matches()) {
                path = in.group(1);
                value = new In(parseList(entry, path, in.group(2)));
            } else {
                int eq = text.indexOf('=');
                if (eq < 0) {
                    throw invalid(entry, "expected \"path=value\" or \"path in (value, ...)\"");
                }
                path = text.substring(0, eq).strip();
                value = parseValue(entry, text.substring(eq + 1).strip(), path);
            }
            if (path.isEmpty() || path.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"')) {
                throw invalid(entry, "expected a field path before \"=\" or \"in\", such as"
                        + " kind or resource.kind");
            }
            segments(path, "payload filter entry \"" + entry + "\" is invalid: path \"" + path + "\"");
            if (expected.putIfAbsent(path, value) != null) {
                throw invalid(entry, "path \"" + path + "\" already has a condition");
            }
        }
        return of(expected);
    }

    /** True when the payload satisfies every condition; a null payload counts as {@code {}}. */
    public boolean matches(JsonObject payload) {
        JsonObject subject = payload == null ? JsonValue.EMPTY_JSON_OBJECT : payload;
        for (Condition condition : conditions) {
            if (!condition.matches(subject)) {
                return false;
            }
        }
        return true;
    }

    /** True when the filter has no conditions and so matches every payload. */
    public boolean isEmpty() {
        return conditions.isEmpty();
    }

    @Override
    public String toString() {
        return "PayloadFilter[" + conditions.stream().map(Condition::toString)
                .collect(Collectors.joining("; ")) + "]";
    }

    // ---- comparison ---------------------------------------------------------------------------

    static boolean sameValue(JsonValue expected, JsonValue actual) {
        if (expected.getValueType() != actual.getValueType()) {
            return false;
        }
        return switch (expected.getValueType()) {
            case NUMBER -> ((JsonNumber) expected).bigDecimalValue()
                    .compareTo(((JsonNumber) actual).bigDecimalValue()) == 0;
            case STRING -> ((JsonString) expected).getString().equals(((JsonString) actual).getString());
            case TRUE, FALSE, NULL -> true;
            case OBJECT, ARRAY -> CanonicalJson.canonical(expected).equals(CanonicalJson.canonical(actual));
        };
    }

    // ---- building -----------------------------------------------------------------------------

    private static List<String> segments(String path, String describe) {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException(describe + " must not be blank");
        }
        List<String> segments = Arrays.asList(path.split("\\.", -1));
        if (segments.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(describe + " has an empty segment; write"
                    + " dotted paths like resource.kind");
        }
        return List.copyOf(segments);
    }

    private static JsonValue toJson(Object value, String describe) {
        JsonProvider json = Jsons.provider();
        if (value == null) {
            return JsonValue.NULL;
        } else if (value instanceof JsonValue jsonValue) {
            return jsonValue;
        } else if (value instanceof String s) {
            return json.createValue(s);
        } else if (value instanceof Boolean b) {
            return b ? JsonValue.TRUE : JsonValue.FALSE;
        } else if (value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            return json.createValue(((Number) value).longValue());
        } else if (value instanceof BigDecimal d) {
            return json.createValue(d);
        } else if (value instanceof BigInteger i) {
            return json.createValue(i);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (!Double.isFinite(d)) {
                throw new IllegalArgumentException(describe + " must be a finite number, got " + value);
            }
            return json.createValue(new BigDecimal(value.toString()));
        }
        throw new IllegalArgumentException(describe + " must be a JSON value, string, number,"
                + " boolean or null, got " + value.getClass().getName());
    }

    private static JsonValue parseValue(String entry, String token, String path) {
        if (token.isEmpty()) {
            throw invalid(entry, "the value is missing (write " + path
                    + "=\"\" to match an empty string)");
        }
        if (token.startsWith("\"")) {
            if (closingQuote(token) != token.length() - 1) {
                throw invalid(entry, "value " + token + " is not a single JSON string");
            }
            try (JsonReader reader = Jsons.provider().createReader(new StringReader(token))) {
                JsonValue value = reader.readValue();
                if (value.getValueType() == JsonValue.ValueType.STRING) {
                    return value;
                }
            } catch (JsonParsingException e) {
                // reported below
            }
            throw invalid(entry, "value " + token + " is not a single JSON string");
        }
        if (token.indexOf('"') >= 0) {
            throw invalid(entry, "value " + token + " has a quote inside; quote the whole value");
        }
        switch (token) {
            case "true":
                return JsonValue.TRUE;
            case "false":
                return JsonValue.FALSE;
            case "null":
                return JsonValue.NULL;
            default:
                break;
        }
        if (JSON_NUMBER.matcher(token).matches()) {
            return Jsons.provider().createValue(new BigDecimal(token));
        }
        return Jsons.provider().createValue(token);
    }

    /** The index of the quote that closes the string opened at index 0, or -1 if none does. */
    private static int closingQuote(String token) {
        for (int i = 1; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i;
            }
        }
        return -1;
    }

    private static List<JsonValue> parseList(String entry, String path, String body) {
        List<String> items = new ArrayList<>();
        StringBuilder item = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (quoted && c == '\\' && i + 1 < body.length()) {
                item.append(c).append(body.charAt(++i));
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                items.add(item.toString());
                item.setLength(0);
                continue;
            } else if ((c == '(' || c == ')') && !quoted) {
                throw invalid(entry, "parentheses inside the list must be quoted");
            }
            item.append(c);
        }
        if (quoted) {
            throw invalid(entry, "a quoted value in the list is not closed");
        }
        items.add(item.toString());
        List<JsonValue> values = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String token = items.get(i).strip();
            if (token.isEmpty()) {
                throw invalid(entry, items.size() == 1 ? "the \"in\" list is empty"
                        : "item " + (i + 1) + " of the \"in\" list is empty");
            }
            values.add(parseValue(entry, token, path));
        }
        return List.copyOf(values);
    }

    private static IllegalArgumentException invalid(String entry, String problem) {
        return new IllegalArgumentException("payload filter entry \"" + entry + "\" is invalid: " + problem);
    }
}
