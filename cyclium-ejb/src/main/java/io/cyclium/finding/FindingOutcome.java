package io.cyclium.finding;

/**
 * What applying a {@link FindingAction} did.
 *
 * <p>{@link Kind#RAISED} means a new active row was inserted; {@link Kind#UPDATED} means an active
 * row already existed and was changed, by a re-raise or an update. {@link Kind#NOOP} is a clear
 * that found nothing active; {@link Kind#NOT_FOUND} an update that found nothing active. Those
 * two carry no id, class or severity.
 *
 * @param env the env the action resolved to (null: the unset env)
 */
public record FindingOutcome(Kind kind, String findingId, String findingKey, String env, String findingClass,
        Severity severity) {

    public enum Kind {
        RAISED, UPDATED, CLEARED, NOOP, NOT_FOUND
    }

    /** Whether a row changed (and a {@link FindingChanged} event is due). */
    public boolean changed() {
        return kind == Kind.RAISED || kind == Kind.UPDATED || kind == Kind.CLEARED;
    }

    static FindingOutcome nothing(Kind kind, String findingKey, String env) {
        return new FindingOutcome(kind, null, findingKey, env, null, null);
    }
}
