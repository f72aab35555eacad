package io.cyclium.episode;

import java.time.Duration;
import java.time.LocalDateTime;

/**
 * A subject's pending debounced trigger, as stored in {@code cyclium_debounced_triggers}: the last
 * event of the window ({@code trigger}, its dedupe key), the actor and expectation it fires, the
 * stack and env its episode is stamped with, and {@code window}. {@code id} names the subject
 * (one row per actor, expectation, stack, env and subject value); {@code version} counts the events
 * that replaced the row, so a node that read it fires only what it read. {@code fireAt} is read
 * back from the database (null when written). {@code traceParent} is the span of the window's last
 * event, the parent of the episode it fires (null when tracing is off).
 */
public record DebouncedTrigger(String id, String actorId, String expectationId, String subject, String sourceStack,
        String sourceEnv, TriggerInfo trigger, String dedupeKey, Duration window, long version, LocalDateTime fireAt,
        String traceParent) {

    /** Without a trace parent (tests). */
    public DebouncedTrigger(String id, String actorId, String expectationId, String subject, String sourceStack,
            String sourceEnv, TriggerInfo trigger, String dedupeKey, Duration window, long version, LocalDateTime fireAt) {
        this(id, actorId, expectationId, subject, sourceStack, sourceEnv, trigger, dedupeKey, window, version, fireAt, null);
    }
}
