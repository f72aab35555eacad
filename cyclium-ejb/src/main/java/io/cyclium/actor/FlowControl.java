package io.cyclium.actor;

import io.cyclium.keys.CanonicalJson;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * When an expectation's episodes may start, cluster-wide: at most {@code concurrencyLimit} running
 * at once per value of the payload field {@code concurrencyKey} (null: no key, no limit), and the
 * order in which queued ones start: {@code priority}, or the payload's integer at
 * {@code priorityField} when it has one (higher first; aging lifts waiting work, see
 * {@code cyclium.priority.aging-seconds}).
 *
 * <p>The field paths are dotted ({@code tenant}, {@code order.region}); a leading {@code $.} is
 * accepted and ignored. A payload without the key field runs under the key {@value #NO_KEY}.
 * {@code keyFunction} (null: none) computes the key from the whole trigger instead of a path
 * ({@link ConcurrencyKeyFunction}). {@code rateLimit} starts per {@code ratePeriod} (0: none) cap
 * how fast episodes of the expectation start, cluster-wide; with {@code rateLimitPerKey} each key
 * value has that rate of its own.
 */
public record FlowControl(String concurrencyKey, int concurrencyLimit, int priority, String priorityField, int rateLimit,
        java.time.Duration ratePeriod, boolean rateLimitPerKey, Class<? extends ConcurrencyKeyFunction> keyFunction) {

    /** Nothing declared: no key, no limit, priority 0. */
    public static final FlowControl NONE = new FlowControl(null, 0, 0, null);

    /** Without a rate limit. */
    public FlowControl(String concurrencyKey, int concurrencyLimit, int priority, String priorityField) {
        this(concurrencyKey, concurrencyLimit, priority, priorityField, 0, java.time.Duration.ZERO);
    }

    /** Without a rate limit per key or a key function. */
    public FlowControl(String concurrencyKey, int concurrencyLimit, int priority, String priorityField, int rateLimit,
            java.time.Duration ratePeriod) {
        this(concurrencyKey, concurrencyLimit, priority, priorityField, rateLimit, ratePeriod, false, null);
    }

    /** Whether at most {@code rateLimit} episodes start per {@code ratePeriod}, cluster-wide. */
    public boolean rateLimited() {
        return rateLimit > 0 && ratePeriod.toMillis() > 0;
    }

    /** The key of a payload without the key field (or a key function's null or blank answer). */
    public static final String NO_KEY = "(none)";

    /** The key of a trigger whose key function threw: one shared key, so a broken function still runs limited. */
    public static final String KEY_FAILED = "(key function failed)";

    /** Keys longer than this are stored as a hash (the slot table's column is 255 characters). */
    static final int MAX_KEY = 200;

    public FlowControl {
        ratePeriod = ratePeriod == null ? java.time.Duration.ZERO : ratePeriod;
        concurrencyKey = path(concurrencyKey);
        priorityField = path(priorityField);
    }

    /** Whether {@code p} is a dotted payload field path ({@code tenant}, {@code $.order.region}). */
    public static boolean isFieldPath(String p) {
        return p.matches("(\\$\\.)?[^.\\s]+(\\.[^.\\s]+)*");
    }

    private static String path(String p) {
        if (p == null || p.isBlank()) {
            return null;
        }
        return p.startsWith("$.") ? p.substring(2) : p;
    }

    /** Whether a key and a limit are declared: the episodes take a slot of the cluster-wide limit. */
    public boolean limited() {
        return keyed() && concurrencyLimit > 0;
    }

    /** Whether the episodes have a concurrency key (a payload path or a key function). */
    public boolean keyed() {
        return concurrencyKey != null || keyFunction != null;
    }

    /** Whether each key value has a rate limit of its own (a bucket per key), rather than one for the expectation. */
    public boolean ratePerKey() {
        return rateLimitPerKey && rateLimited() && keyed();
    }

    /** What the key is read from, as an operator reads it: "$.tenant", or "TenantOfOrder()". */
    public String keySource() {
        return keyFunction != null ? keyFunction.getSimpleName() + "()" : concurrencyKey == null ? null : "$." + concurrencyKey;
    }

    /** Whether queued episodes may start out of arrival order. */
    public boolean prioritized() {
        return priority != 0 || priorityField != null;
    }

    /**
     * The concurrency key of a trigger's payload at {@code concurrencyKey} (null when no payload
     * path is declared; a key function's key is the runtime's to compute, see {@link #stored}).
     */
    public String keyOf(JsonObject payload) {
        if (concurrencyKey == null) {
            return null;
        }
        JsonValue v = at(payload, concurrencyKey);
        return stored(v == null ? null : v instanceof JsonString s ? s.getString() : CanonicalJson.canonical(v));
    }

    /** A key as stored and limited: {@value #NO_KEY} for none (null or blank), a hash when too long for the column. */
    public static String stored(String key) {
        if (key == null || key.isBlank()) {
            return NO_KEY;
        }
        return key.length() > MAX_KEY ? "sha256:" + CanonicalJson.sha256Hex(key) : key;
    }

    /** The priority of a trigger's payload: its integer at {@code priorityField}, else {@code priority}. */
    public int priorityOf(JsonObject payload) {
        if (priorityField != null && at(payload, priorityField) instanceof JsonNumber n) {
            try {
                return n.intValueExact();
            } catch (ArithmeticException notAnInt) {
                return priority;
            }
        }
        return priority;
    }

    private static JsonValue at(JsonObject payload, String path) {
        JsonValue v = payload;
        for (String part : path.split("\\.")) {
            if (!(v instanceof JsonObject o) || !o.containsKey(part)) {
                return null;
            }
            v = o.get(part);
        }
        return v == JsonValue.NULL ? null : v;
    }
}
