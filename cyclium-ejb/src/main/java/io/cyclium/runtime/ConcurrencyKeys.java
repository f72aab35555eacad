package io.cyclium.runtime;

import io.cyclium.actor.ConcurrencyKeyFunction;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.FlowControl;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.Telemetry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The concurrency key of a trigger: its payload at the expectation's path, or its key function's
 * answer ({@code @Expectation(concurrencyKeyFunction)}), as stored and limited. A function that
 * answers null or blank gives {@value FlowControl#NO_KEY}; one that throws is logged with the actor,
 * expectation and trigger, counted ({@code concurrency_key_failed}) and gives
 * {@value FlowControl#KEY_FAILED}, so the trigger is still stored and runs under a limit, visibly.
 */
final class ConcurrencyKeys {

    private static final Logger LOG = Logger.getLogger(ConcurrencyKeys.class.getName());

    /** Where the function instances come from: the application's CDI beans in the container. */
    @FunctionalInterface
    interface Beans {
        ConcurrencyKeyFunction of(Class<? extends ConcurrencyKeyFunction> type);
    }

    /** Outside a container (engine tests): a new instance by the public no-argument constructor. */
    static final Beans BY_CONSTRUCTOR = type -> {
        try {
            return type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("key function " + type.getName() + " has no usable no-argument constructor", e);
        }
    };

    private final Beans beans;
    private final Telemetry telemetry;
    private final Map<Class<?>, ConcurrencyKeyFunction> functions = new ConcurrentHashMap<>();

    ConcurrencyKeys(Beans beans, Telemetry telemetry) {
        this.beans = beans;
        this.telemetry = telemetry;
    }

    /** The key of {@code trigger} under {@code exp}'s flow control; null when it declares no key. */
    String keyOf(String actorId, ExpectationDefinition exp, TriggerInfo trigger) {
        FlowControl flow = exp.flow();
        if (flow.keyFunction() == null) {
            return flow.keyOf(trigger.payload());
        }
        try {
            return FlowControl.stored(functions.computeIfAbsent(flow.keyFunction(), c -> beans.of(flow.keyFunction()))
                    .keyOf(trigger));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Key function " + flow.keyFunction().getName() + " of actor " + actorId + ", expectation "
                    + exp.id() + " failed on a " + trigger.type() + " trigger" + (trigger.eventId() == null ? ""
                    : " (event " + trigger.eventId() + ")") + "; the episode runs under the key " + FlowControl.KEY_FAILED, e);
            telemetry.count("concurrency_key_failed", "actor", actorId, "expectation", exp.id());
            return FlowControl.KEY_FAILED;
        }
    }
}
