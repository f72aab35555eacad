package io.cyclium.node;

/**
 * Implement this as a CDI bean in the host application to name the node yourself (for example from
 * an orchestrator's pod name). {@code cyclium.node-identity} wins over it when both are present.
 */
public interface NodeIdentityProvider {
    String nodeIdentity();
}
