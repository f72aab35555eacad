package io.cyclium.node;

import io.cyclium.config.CycliumConfig;
import io.cyclium.store.DatabaseVendor;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.logging.Logger;

/**
 * Writes this node's row at boot (identity, mode, stack, env, started_at on the database clock).
 * The heartbeat keeps {@code last_seen} fresh later; the drain stamps {@code stopped_at}.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
public class NodeRegistry {

    private static final Logger LOG = Logger.getLogger(NodeRegistry.class.getName());

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Inject
    NodeIdentity identity;

    @Inject
    CycliumConfig config;

    @Inject
    DatabaseVendor vendor;

    @PostConstruct
    void register() {
        String hostInfo = "pid " + ProcessHandle.current().pid() + ", java " + Runtime.version();
        NodeStore store = new NodeStore(vendor);
        // Refuses to start (the deployment fails with the reason) while another live process beats
        // under this identity; a predecessor that died a moment ago costs at most one heartbeat's wait.
        IdentityGuard guard = new IdentityGuard(identity.name(), config.heartbeatInterval(), d -> Thread.sleep(d.toMillis()));
        guard.check(() -> store.lastLife(em, identity.name(), guard.recentSeconds()));
        store.register(em, identity.name(), config.mode(), config.stackSlug(), config.env(),
                hostInfo);
        LOG.info(() -> "Cyclium node " + identity.name() + " registered (mode " + config.mode().wireName()
                + ", stack " + config.stackSlug() + ", env " + config.env() + ")");
    }
}
