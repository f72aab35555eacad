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
 * {@code rateLimit} starts per {@code ratePeriod} (0: none) cap how fast episodes of the
 * expectation start, cluster-wide.
 */
public record FlowControl(String concurrencyKey, int concurrencyLimit, int priority, String priorityField, int rateLimit,
        java.time.Duration ratePeriod) {

    /** Nothing declared: no key, no limit, priority 0. */
    public static final FlowControl NONE = new FlowControl(null, 0, 0, null);

    /** Without a rate limit. */
    public FlowControl(String concurrencyKey, int concurrencyLimit, int priority, String priorityField) {
        this(concurrencyKey, concurrencyLimit, priority, priorityField, 0, java.time.Duration.ZERO);
    }

    /** Whether at most {@code rateLimit} episodes start per {@code ratePeriod}, cluster-wide. */
    public boolean rateLimited() {
        return rateLimit > 0 && ratePeriod.toMillis() > 0;
    }

    /** The key of a payload without the key field. */
    public static final String NO_KEY = "(none)";

    /** Keys longer than this are stored as a hash (the slot table's column is 255 characters). */
    static final int MAX_KEY = 200;

    public FlowControl {
        ratePeriod = ratePeriod == null ? java.time.Duration.ZERO : ratePeriod;
        concurrencyKey = path(concurrencyKey);
        priorityField = path(priorityField);
    }

    private static String path(String p) {
        if (p == null || p.isBlank()) {
            return null;
        }
        return p.startsWith("$.") ? p.substring(2) : p;
    }

    /** Whether a key and a limit are declared: the episodes take a slot of the cluster-wide limit. */
    public boolean limited() {
        return concurrencyKey != null && concurrencyLimit > 0;
    }

    /** Whether queued episodes may start out of arrival order. */
    public boolean prioritized() {
        return priority != 0 || priorityField != null;
    }

    /** The concurrency key of a trigger's payload (null when no key is declared). */
    public String keyOf(JsonObject payload) {
        if (!limited()) {
            return null;
        }
        JsonValue v = at(payload, concurrencyKey);
        if (v == null) {
            return NO_KEY;
        }
        String key = v instanceof JsonString s ? s.getString() : CanonicalJson.canonical(v);
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
