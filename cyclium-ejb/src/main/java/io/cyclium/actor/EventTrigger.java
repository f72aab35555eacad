package io.cyclium.actor;


/** A validated event trigger. */
public record EventTrigger(String type, PayloadFilter filter) {
}
