package io.cyclium.node;

import io.cyclium.audit.PendingAudit;
import io.cyclium.store.DatabaseVendor;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.store.Tx;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The node's mode and per-actor overrides, switchable at runtime. Reads are a volatile field and a
 * concurrent map lookup: free on the trigger path. A node-wide switch is written to the node row so
 * the console shows it.
 */
@ApplicationScoped
public class NodeModes {

    private static final Logger LOG = Logger.getLogger(NodeModes.class.getName());

    /** What the status endpoint and console show. */
    public record Status(String nodeIdentity, String nodeMode, Map<String, String> overrides) {
    }

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    private volatile NodeMode nodeMode;
    private final Map<String, NodeMode> overrides = new ConcurrentHashMap<>();

    @PostConstruct
    void init() {
        nodeMode = config.mode();
    }

    public NodeMode nodeMode() {
        return nodeMode;
    }

    /** The mode an actor runs in: its override, else the node's. A disabled node disables every actor. */
    public NodeMode modeFor(String actorId) {
        NodeMode node = nodeMode;
        if (node == NodeMode.DISABLED) {
            return NodeMode.DISABLED;
        }
        NodeMode override = overrides.get(actorId);
        return override != null ? override : node;
    }

    public void setNodeMode(NodeMode mode) {
        NodeMode before = nodeMode;
        nodeMode = mode;
        PendingAudit.detail(before.wireName() + " → " + mode.wireName());
        tx.run(em -> {
            new NodeStore(vendor).setMode(em, identity.name(), mode);
            PendingAudit.recordIn(em);
        });
        LOG.info(() -> "Node " + identity.name() + " mode " + before.wireName() + " → " + mode.wireName());
    }

    public void setActorOverride(String actorId, NodeMode mode) {
        // held in this node's memory only: an operator's audit row is written on its own (AuditTrail)
        PendingAudit.detail(mode.wireName() + " on " + identity.name());
        overrides.put(actorId, mode);
        LOG.info(() -> "Actor " + actorId + " on " + identity.name() + " overridden to " + mode.wireName());
    }

    public void clearActorOverride(String actorId) {
        PendingAudit.detail("on " + identity.name());
        overrides.remove(actorId);
        LOG.info(() -> "Actor " + actorId + " on " + identity.name() + " follows the node mode again");
    }

    public Status status() {
        Map<String, String> o = new TreeMap<>();
        overrides.forEach((k, v) -> o.put(k, v.wireName()));
        return new Status(identity.name(), nodeMode.wireName(), o);
    }
}
