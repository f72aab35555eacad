package io.cyclium.keys;


import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

/**
 * The dedupe keys that let exactly one node of a cluster start an episode for a trigger.
 *
 * <p>Every node sees every trigger and tries to insert an episode; the database's unique index on
 * the key lets one insert through. So each key must be computed from the trigger alone, the same
 * way on every node, and never from anything random or node-local.
 *
 * <ul>
 *   <li>{@code event:<actor>:<expectation>:<hash>} where the hash is taken from the publisher's
 *       event id when there is one, and otherwise from the event's type and payload;
 *   <li>{@code schedule:<actor>:<expectation>:<bucket>} for interval and cron schedules;
 *   <li>{@code manual:<actor>:<expectation>:<hash>} for a manual fire that carries an
 *       idempotency id (without one, a manual fire is not deduplicated).
 * </ul>
 *
 * <p>Hashes are the first {@value #HASH_CHARS} hex characters (128 bits) of a SHA-256. Keys never
 * exceed {@value #MAX_LENGTH} characters, the width of the database column. Actor and
 * expectation ids may not contain {@code ':'}: with it, two different pairs of ids could produce
 * the same key.
 */
public final class DedupeKeys {

    /** The longest key the database column holds. */
    public static final int MAX_LENGTH = 512;

    /** How many hex characters of a SHA-256 a key keeps. */
    public static final int HASH_CHARS = 32;

    private DedupeKeys() {
    }

    /**
     * The key of an event trigger.
     *
     * @param eventId the publisher's id for the event; when null or blank the key is derived from
     *     {@code type} and {@code payload} instead, so that every node still agrees on it
     * @param type the event's name; null is treated as JSON null
     * @param payload the event's payload; null is treated as JSON null
     */
    public static String event(String actorId, String expectationId, String eventId, String type,
            JsonValue payload) {
        checkIds(actorId, expectationId);
        String hash;
        if (eventId != null && !eventId.isBlank()) {
            hash = CanonicalJson.sha256Hex(eventId);
        } else {
            JsonProvider json = Json.PROVIDER;
            JsonValue content = json.createObjectBuilder()
                    .add("type", type == null ? JsonValue.NULL : json.createValue(type))
                    .add("payload", payload == null ? JsonValue.NULL : payload)
                    .build();
            hash = CanonicalJson.hash(content);
        }
        return bounded("event:" + actorId + ":" + expectationId + ":" + hash.substring(0, HASH_CHARS),
                actorId, expectationId);
    }

    /**
     * The key of a schedule or cron trigger.
     *
     * @param bucket the fire's bucket, see {@link io.cyclium.timing.ScheduleBuckets}
     */
    public static String schedule(String actorId, String expectationId, String bucket) {
        checkIds(actorId, expectationId);
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("schedule bucket is required for actor \"" + actorId
                    + "\" and expectation \"" + expectationId + "\"");
        }
        return bounded("schedule:" + actorId + ":" + expectationId + ":" + bucket,
                actorId, expectationId);
    }

    /**
     * The key of a manual fire, or null when the caller gave no idempotency id (null or blank), in
     * which case every such fire starts its own episode.
     */
    public static String manual(String actorId, String expectationId, String requestId) {
        checkIds(actorId, expectationId);
        if (requestId == null || requestId.isBlank()) {
            return null;
        }
        String hash = CanonicalJson.sha256Hex(requestId).substring(0, HASH_CHARS);
        return bounded("manual:" + actorId + ":" + expectationId + ":" + hash, actorId, expectationId);
    }

    /**
     * Appends {@code ":" + env} when the node runs in a named environment, so that environments
     * sharing one database never dedupe against each other. With a null or blank env the key is
     * returned unchanged, and a null key stays null.
     */
    public static String withEnv(String key, String env) {
        if (key == null || env == null || env.isBlank()) {
            return key;
        }
        String withEnv = key + ":" + env;
        if (withEnv.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("dedupe key with env \"" + env + "\" would be "
                    + withEnv.length() + " characters, more than the " + MAX_LENGTH
                    + " the database allows; use a shorter env name (key: " + key + ")");
        }
        return withEnv;
    }

    private static void checkIds(String actorId, String expectationId) {
        checkId("actor", actorId);
        checkId("expectation", expectationId);
    }

    private static void checkId(String what, String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException(what + " id is required for a dedupe key, got "
                    + (id == null ? "null" : "\"" + id + "\""));
        }
        if (id.indexOf(':') >= 0) {
            throw new IllegalArgumentException(what + " id \"" + id + "\" must not contain ':'"
                    + " because dedupe keys use it to separate their parts");
        }
    }

    private static String bounded(String key, String actorId, String expectationId) {
        if (key.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("dedupe key for actor \"" + actorId
                    + "\" and expectation \"" + expectationId + "\" would be " + key.length()
                    + " characters, more than the " + MAX_LENGTH + " the database allows;"
                    + " use shorter ids");
        }
        return key;
    }

    /** Looked up once, on first use: a provider lookup per call would scan the class path. */
    private static final class Json {
        static final JsonProvider PROVIDER = JsonProvider.provider();
    }
}
