package io.cyclium.actor;

import io.cyclium.actor.trigger.PayloadFilter;

/** A validated event trigger. */
public record EventTrigger(String type, PayloadFilter filter) {
}
