package io.cyclium.runtime;

/**
 * Fired (as a CDI event) after each recovery sweep over a stack (any stack with {@code anyStack})
 * and env (null = unset), whether or not it found orphans. The workflow engine reconciles its instances of that scope on it: the sweep
 * lives in a tier beside the engine, so this event is how the two meet without depending on each other.
 */
public record RecoverySwept(String stack, boolean anyStack, String env) {
}
