package io.cyclium.actor;

import io.cyclium.episode.TriggerInfo;

/**
 * An expectation's concurrency key computed from its trigger, when a payload path is not enough
 * ({@code @Expectation(concurrencyKeyFunction = TenantOfOrder.class)}): the tenant of an order looked
 * up by its id, a key made of two fields. The runtime resolves the class as a CDI bean of the
 * application (checked at startup) and calls it once per trigger, before the episode is stored, on
 * the thread that fires it: keep it quick and free of side effects.
 *
 * <p>{@code null} or a blank answer means the trigger has no key: it runs under
 * {@value FlowControl#NO_KEY}, as a payload without the key field does. An exception is logged with
 * the actor, expectation and trigger, counted ({@code concurrency_key_failed}), and the episode runs
 * under the key {@value FlowControl#KEY_FAILED}: still under the limit, visibly, never unlimited.
 */
@FunctionalInterface
public interface ConcurrencyKeyFunction {

    /** The key of this trigger (its type, event id and payload: the event's, the manual start's, the step's input). */
    String keyOf(TriggerInfo trigger);
}
