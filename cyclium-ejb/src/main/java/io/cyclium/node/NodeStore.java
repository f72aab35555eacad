package io.cyclium.node;

import io.cyclium.config.NodeMode;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes on {@code cyclium_nodes}: one row per node identity, written by that node only, so no
 * statement here races another node. Times are the database's UTC clock; every method runs inside
 * the caller's transaction. The read side is {@link NodeQueries}. (The heartbeat's
 * {@code last_seen} and the drain's {@code stopped_at} are still written in the recovery package.)
 */
public final class NodeStore {

    private final DatabaseVendor vendor;

    public NodeStore(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /**
     * The node's row at boot: mode, stack, env and host, started and seen now, not stopped. A
     * restarted node keeps its row (and its history in the console); a new one inserts it.
     */
    public void register(EntityManager em, String node, NodeMode mode, String stackSlug, String env, String hostInfo) {
        String now = vendor.utcNow();
        int updated = new NativeSql().sql("UPDATE cyclium_nodes SET mode = ").value(mode.wireName())
                .sql(", stack_slug = ").value(orNull(stackSlug))
                .sql(", env = ").value(orNull(env))
                .sql(", host_info = ").value(hostInfo)
                .sql(", started_at = " + now + ", last_seen = " + now + ", stopped_at = NULL WHERE node_identity = ")
                .value(node)
                .executeUpdate(em);
        if (updated == 0) {
            Map<String, Object> columns = new LinkedHashMap<>();
            columns.put("node_identity", node);
            columns.put("mode", mode.wireName());
            columns.put("stack_slug", stackSlug);
            columns.put("env", env);
            columns.put("host_info", hostInfo);
            columns.put("started_at", NativeSql.raw(now));
            columns.put("last_seen", NativeSql.raw(now));
            new NativeSql().insert("cyclium_nodes", columns).executeUpdate(em);
        }
    }

    /** What the node row says of the process that last held the identity: its heartbeat's last write and whether it stopped. */
    public record LastLife(Object lastSeen, boolean stopped, boolean recentlySeen, String hostInfo) {
    }

    /**
     * The row's last life, if there is a row: {@code recentlySeen} when {@code last_seen} is within
     * {@code withinSeconds} of now on the database clock.
     */
    public java.util.Optional<LastLife> lastLife(EntityManager em, String node, long withinSeconds) {
        @SuppressWarnings("unchecked")
        java.util.List<Object[]> rows = new NativeSql().sql("SELECT last_seen, CASE WHEN stopped_at IS NULL THEN 0 ELSE 1 END,"
                        + " CASE WHEN last_seen >= ").around(-withinSeconds, vendor::utcNowPlusSeconds)
                .sql(" THEN 1 ELSE 0 END, host_info FROM cyclium_nodes WHERE node_identity = ").value(node)
                .query(em).getResultList();
        return rows.stream().findFirst().map(r -> new LastLife(r[0], ((Number) r[1]).intValue() == 1,
                ((Number) r[2]).intValue() == 1, (String) r[3]));
    }

    /** An operator switched the node's mode. */
    public void setMode(EntityManager em, String node, NodeMode mode) {
        new NativeSql().sql("UPDATE cyclium_nodes SET mode = ").value(mode.wireName())
                .sql(", last_seen = " + vendor.utcNow() + " WHERE node_identity = ").value(node)
                .executeUpdate(em);
    }

    private static Object orNull(Object value) {
        return value == null ? NativeSql.raw("NULL") : value;
    }
}
