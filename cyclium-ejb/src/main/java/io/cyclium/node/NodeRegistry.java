package io.cyclium.node;

import io.cyclium.config.CycliumConfig;
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
    DbClock clock;

    @PostConstruct
    void register() {
        String hostInfo = "pid " + ProcessHandle.current().pid() + ", java " + Runtime.version();
        // Update first: a restarted node keeps its row (and its history in the console).
        int updated = em.createNativeQuery("UPDATE cyclium_nodes SET mode = ?1, stack_slug = ?2, env = ?3, host_info = ?4,"
                        + " started_at = " + clock.nowSql() + ", last_seen = " + clock.nowSql() + ", stopped_at = NULL"
                        + " WHERE node_identity = ?5")
                .setParameter(1, config.mode().wireName())
                .setParameter(2, config.stackSlug())
                .setParameter(3, config.env())
                .setParameter(4, hostInfo)
                .setParameter(5, identity.name())
                .executeUpdate();
        if (updated == 0) {
            em.createNativeQuery("INSERT INTO cyclium_nodes (node_identity, mode, stack_slug, env, host_info, started_at, last_seen)"
                            + " VALUES (?1, ?2, ?3, ?4, ?5, " + clock.nowSql() + ", " + clock.nowSql() + ")")
                    .setParameter(1, identity.name())
                    .setParameter(2, config.mode().wireName())
                    .setParameter(3, config.stackSlug())
                    .setParameter(4, config.env())
                    .setParameter(5, hostInfo)
                    .executeUpdate();
        }
        LOG.info(() -> "Cyclium node " + identity.name() + " registered (mode " + config.mode().wireName()
                + ", stack " + config.stackSlug() + ", env " + config.env() + ")");
    }
}
