package io.cyclium.node;

import io.cyclium.config.CycliumConfig;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import io.cyclium.store.NativeSql;
import java.util.LinkedHashMap;
import java.util.Map;
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

    private static Object orNull(Object value) {
        return value == null ? NativeSql.raw("NULL") : value;
    }

    @PostConstruct
    void register() {
        String hostInfo = "pid " + ProcessHandle.current().pid() + ", java " + Runtime.version();
        // Update first: a restarted node keeps its row (and its history in the console).
        String now = clock.nowSql();
        // Update first: a restarted node keeps its row (and its history in the console).
        int updated = new NativeSql().sql("UPDATE cyclium_nodes SET mode = ").value(config.mode().wireName())
                .sql(", stack_slug = ").value(orNull(config.stackSlug()))
                .sql(", env = ").value(orNull(config.env()))
                .sql(", host_info = ").value(hostInfo)
                .sql(", started_at = " + now + ", last_seen = " + now + ", stopped_at = NULL WHERE node_identity = ")
                .value(identity.name())
                .executeUpdate(em);
        if (updated == 0) {
            Map<String, Object> columns = new LinkedHashMap<>();
            columns.put("node_identity", identity.name());
            columns.put("mode", config.mode().wireName());
            columns.put("stack_slug", config.stackSlug());
            columns.put("env", config.env());
            columns.put("host_info", hostInfo);
            columns.put("started_at", NativeSql.raw(now));
            columns.put("last_seen", NativeSql.raw(now));
            new NativeSql().insert("cyclium_nodes", columns).executeUpdate(em);
        }
        LOG.info(() -> "Cyclium node " + identity.name() + " registered (mode " + config.mode().wireName()
                + ", stack " + config.stackSlug() + ", env " + config.env() + ")");
    }
}
