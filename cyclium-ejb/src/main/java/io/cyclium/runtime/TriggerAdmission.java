package io.cyclium.runtime;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.actor.EventTrigger;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.keys.CanonicalJson;
import io.cyclium.keys.DedupeKeys;
import io.cyclium.telemetry.Telemetry;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides which events become fires for one actor on this node: payload filters, the dedupe key
 * (env-scoped, the same on every node), cooldown per subject and trailing-edge debounce per
 * subject. Cooldowns are per node and in memory by design: the cluster-wide "once" comes from the
 * dedupe key, a cooldown only thins out bursts. A debounced event is stored (the subject's pending
 * trigger row, see {@link io.cyclium.episode.DebouncedTriggerStore}) before the caller is answered,
 * and any node fires it when its window closes.
 */
final class TriggerAdmission {

    /** Where an admitted event goes: the actor's fire now, or the subject's stored debounce window. */
    interface Firing {
        FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey);

        /** Stores (or replaces, pushing its window) the subject's pending trigger; the refusal when it cannot. */
        Optional<FireResult> debounce(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, String subject);
    }

    /**
     * One matched expectation: its dedupe key and what became of it — the fire's result, or (result
     * null) {@code held} says why there is none yet: debounced, or cooling down for {@code retryAfter}.
     */
    record Admitted(String dedupeKey, FireResult result, Outcome held, Duration retryAfter) {
    }

    private final ActorDefinition definition;
    private final String env;
    private final Clock clock;
    private final Telemetry telemetry;
    private final Map<String, Instant> cooldownUntil = new ConcurrentHashMap<>();

    TriggerAdmission(ActorDefinition definition, String env, Clock clock, Telemetry telemetry) {
        this.definition = definition;
        this.env = env;
        this.clock = clock;
        this.telemetry = telemetry;
    }

    /**
     * Matches an event against the expectations and fires each match at once, in the caller's
     * thread (and transaction): when this returns, every episode it created, and every debounced
     * trigger, is stored. Returns expectation → what was admitted, in declaration order.
     */
    Map<String, Admitted> onEvent(CycliumEvent event, Firing firing) {
        Map<String, Admitted> matched = new LinkedHashMap<>();
        for (ExpectationDefinition exp : definition.expectations()) {
            for (EventTrigger trigger : exp.events()) {
                if (!trigger.type().equals(event.type()) || !trigger.filter().matches(event.payload())) {
                    continue;
                }
                String key = DedupeKeys.withEnv(DedupeKeys.event(definition.id(), exp.id(), event.id(), event.type(),
                        event.payload()), env);
                matched.put(exp.id(), admit(exp, event, key, firing));
                break;
            }
        }
        return matched;
    }

    private Admitted admit(ExpectationDefinition exp, CycliumEvent event, String key, Firing firing) {
        String subjectValue = subjectOf(exp, event.payload());
        String subject = exp.id() + "|" + subjectValue;
        if (!exp.cooldown().isZero()) {
            Instant until = cooldownUntil.get(subject);
            Instant now = clock.instant();
            if (until != null && now.isBefore(until)) {
                telemetry.count("trigger_cooled_down", "actor", definition.id(), "expectation", exp.id());
                return new Admitted(key, null, Outcome.COOLING_DOWN, Duration.between(now, until));
            }
        }
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.EVENT, event.type(), event.id(), event.payload(), null);
        if (exp.debounce().isZero()) {
            return new Admitted(key, firing.fire(exp, trigger, key), null, null);
        }
        // Trailing edge: each event replaces the subject's stored trigger and restarts its window;
        // the last one within the window fires.
        Optional<FireResult> refused = firing.debounce(exp, trigger, key, subjectValue);
        return refused.map(r -> new Admitted(key, r, null, null)).orElseGet(() -> new Admitted(key, null, Outcome.DEBOUNCED, null));
    }

    /**
     * An episode is being created for an event: its subject cools down from now. Returns what puts
     * the subject back as it was, for when that episode is not stored by this node after all (its
     * transaction rolled back, or its key was taken): left cooling, the subject would drop the very
     * event sent again to make up for the loss. A newer cooldown set meanwhile is left alone.
     */
    Runnable fired(ExpectationDefinition exp, TriggerInfo trigger) {
        if (exp.cooldown().isZero() || !TriggerInfo.EVENT.equals(trigger.type())) {
            return () -> { };
        }
        String subject = exp.id() + "|" + subjectOf(exp, trigger.payload());
        Instant until = clock.instant().plus(exp.cooldown());
        Instant before = cooldownUntil.put(subject, until);
        return () -> {
            if (before == null) {
                cooldownUntil.remove(subject, until);
            } else {
                cooldownUntil.replace(subject, until, before);
            }
        };
    }

    static String subjectOf(ExpectationDefinition exp, JsonObject payload) {
        if (exp.subjectKey() == null) {
            return "";
        }
        JsonValue v = payload;
        for (String part : exp.subjectKey().split("\\.")) {
            if (!(v instanceof JsonObject o) || !o.containsKey(part)) {
                return "\u0000none";
            }
            v = o.get(part);
        }
        return v instanceof JsonString s ? s.getString() : CanonicalJson.canonical(v);
    }
}
