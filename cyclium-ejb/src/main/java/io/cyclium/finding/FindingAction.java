package io.cyclium.finding;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Objects;

/**
 * What a converging episode does to findings. A finding is identified by its key within an env:
 * at most one active row per (key, env), and the env is the raising episode's unless stated.
 */
public sealed interface FindingAction permits FindingAction.Raise, FindingAction.Update, FindingAction.Clear {

    String findingKey();

    /**
     * Raise (or refresh) the active finding for a key. Re-raising an active finding updates the
     * given fields (last writer wins) and refreshes its expiry when a TTL is given.
     *
     * @param ttl        null: no expiry (or the expectation's default)
     * @param env        null: the episode's env
     */
    record Raise(String findingKey, String findingClass, Severity severity, String subjectKind, String subjectId,
                 String summary, JsonObject evidence, Double confidence, Duration ttl, String causedByKey, String env)
            implements FindingAction {
        public Raise {
            Objects.requireNonNull(findingKey, "findingKey");
            Objects.requireNonNull(findingClass, "findingClass");
            severity = severity == null ? Severity.MEDIUM : severity;
        }

        public Raise withSeverity(Severity s) {
            return new Raise(findingKey, findingClass, s, subjectKind, subjectId, summary, evidence, confidence, ttl, causedByKey, env);
        }

        public Raise withSubject(String kind, String id) {
            return new Raise(findingKey, findingClass, severity, kind, id, summary, evidence, confidence, ttl, causedByKey, env);
        }

        public Raise withSummary(String text) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, text, evidence, confidence, ttl, causedByKey, env);
        }

        public Raise withEvidence(JsonObject e) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, summary, e, confidence, ttl, causedByKey, env);
        }

        public Raise withConfidence(double c) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, summary, evidence, c, ttl, causedByKey, env);
        }

        public Raise withTtl(Duration t) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, summary, evidence, confidence, t, causedByKey, env);
        }

        public Raise causedBy(String key) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, summary, evidence, confidence, ttl, key, env);
        }

        public Raise inEnv(String e) {
            return new Raise(findingKey, findingClass, severity, subjectKind, subjectId, summary, evidence, confidence, ttl, causedByKey, e);
        }
    }

    /** Change an active finding's severity, summary, evidence or confidence; null fields stay as they are. */
    record Update(String findingKey, Severity severity, String summary, JsonObject evidence, Double confidence, String env)
            implements FindingAction {
        public Update {
            Objects.requireNonNull(findingKey, "findingKey");
        }
    }

    /** Clear the active finding for a key; clearing what is not active is a no-op. */
    record Clear(String findingKey, String reason, String env) implements FindingAction {
        public Clear {
            Objects.requireNonNull(findingKey, "findingKey");
        }
    }

    static Raise raise(String findingKey, String findingClass) {
        return new Raise(findingKey, findingClass, Severity.MEDIUM, null, null, null, null, null, null, null, null);
    }

    static Update update(String findingKey) {
        return new Update(findingKey, null, null, null, null, null);
    }

    static Clear clear(String findingKey, String reason) {
        return new Clear(findingKey, reason, null);
    }
}
