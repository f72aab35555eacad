package io.cyclium.recovery;

/**
 * Which rows a sweep may touch. Stack: the given slug or NULL (rows from single-stack days are
 * everybody's); {@code anyStack} lifts the filter. Env: strict equality, NULL only for the unset
 * env — an env-tagged node never resurrects another world's work.
 */
public record SweepScope(String stack, boolean anyStack, String env) {

    public static SweepScope of(String stack, String env) {
        return new SweepScope(stack, stack == null, env);
    }
}
