package io.cyclium.runtime;

import java.time.Duration;

/**
 * One match of an event and what became of it. An actor's expectation names {@code actor},
 * {@code expectation} and its {@code dedupeKey}; a workflow the event starts names {@code workflow}.
 * {@code id} is the episode or instance stored (null when none was stored by this request, or the
 * episode waits in a debounce window); {@code reason} details a refusal or a coalescing
 * ({@code overflow}, {@code breaker_open}, {@code cooldown}, {@code disabled}, {@code duplicate},
 * {@code in_flight}); {@code retryAfter} is when sending it again may be stored (null: unknown).
 */
public record Match(String actor, String expectation, String workflow, String dedupeKey, Outcome outcome,
        String reason, String id, Duration retryAfter) {

    static Match ofActor(String actor, String expectation, String dedupeKey, Outcome outcome, String reason, String id,
            Duration retryAfter) {
        return new Match(actor, expectation, null, dedupeKey, outcome, reason, id, retryAfter);
    }

    public static Match ofWorkflow(String workflow, Outcome outcome, String reason, String instanceId) {
        return new Match(null, null, workflow, null, outcome, reason, instanceId, null);
    }
}
