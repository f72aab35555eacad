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
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decides which events become fires for one actor on this node: payload filters, the dedupe key
 * (env-scoped, the same on every node), cooldown per subject and trailing-edge debounce per
 * subject. Cooldowns and debounce timers are per node and in memory by design: the cluster-wide
 * "once" comes from the dedupe key, these only thin out bursts.
 */
final class TriggerAdmission {

    /** Where an admitted event goes: the actor's fire, now or (debounced) later. */
    interface Firing {
        FireResult fire(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey);

        void fireWithJitter(ExpectationDefinition exp, TriggerInfo trigger, String dedupeKey, boolean bypassBreaker);
    }

    /** One matched expectation: its dedupe key and what became of it (null: debounced or cooling down). */
    record Admitted(String dedupeKey, FireResult result) {
    }

    private final ActorDefinition definition;
    private final String env;
    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final Telemetry telemetry;
    private final Map<String, ScheduledFuture<?>> debounces = new ConcurrentHashMap<>();
    private final Map<String, Instant> cooldownUntil = new ConcurrentHashMap<>();

    TriggerAdmission(ActorDefinition definition, String env, ScheduledExecutorService timers, Clock clock, Telemetry telemetry) {
        this.definition = definition;
        this.env = env;
        this.timers = timers;
        this.clock = clock;
        this.telemetry = telemetry;
    }

    /**
     * Matches an event against the expectations and fires each match at once, in the caller's
     * thread (and transaction): when this returns, every episode it created is stored. Debounced
     * expectations fire when their window closes. Returns expectation → what was admitted.
     */
    Map<String, Admitted> onEvent(CycliumEvent event, Firing firing) {
        Map<String, Admitted> matched = new HashMap<>();
        for (ExpectationDefinition exp : definition.expectations()) {
            for (EventTrigger trigger : exp.events()) {
                if (!trigger.type().equals(event.type()) || !trigger.filter().matches(event.payload())) {
                    continue;
                }
                String key = DedupeKeys.withEnv(DedupeKeys.event(definition.id(), exp.id(), event.id(), event.type(),
                        event.payload()), env);
                matched.put(exp.id(), new Admitted(key, admit(exp, event, key, firing)));
                break;
            }
        }
        return matched;
    }

    private FireResult admit(ExpectationDefinition exp, CycliumEvent event, String key, Firing firing) {
        String subject = exp.id() + "|" + subjectOf(exp, event.payload());
        if (!exp.cooldown().isZero()) {
            Instant until = cooldownUntil.get(subject);
            if (until != null && clock.instant().isBefore(until)) {
                telemetry.count("trigger_cooled_down", "actor", definition.id(), "expectation", exp.id());
                return null;
            }
        }
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.EVENT, event.type(), event.id(), event.payload(), null);
        if (exp.debounce().isZero()) {
            return firing.fire(exp, trigger, key);
        }
        // Trailing edge: each event re-arms the timer; the last one within the window fires.
        debounces.compute(subject, (k, previous) -> {
            if (previous != null) {
                previous.cancel(false);
            }
            // remove(k, self): a timer that fires while a newer event re-arms the subject must not
            // remove the newer timer from the map, or a later event could not cancel it.
            AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
            ScheduledFuture<?> f = timers.schedule(() -> {
                debounces.remove(k, self.get());
                firing.fireWithJitter(exp, trigger, key, false);
            }, exp.debounce().toMillis(), TimeUnit.MILLISECONDS);
            self.set(f);
            return f;
        });
        return null;
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

    /** Cancels pending debounce timers (drain, undeploy). */
    void stop() {
        debounces.values().forEach(f -> f.cancel(false));
        debounces.clear();
    }

    private static String subjectOf(ExpectationDefinition exp, JsonObject payload) {
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
