package io.cyclium.episode;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Owns the SQL of deferred trigger requests. Every status change is guarded on the status it
 * expects: {@code pending → claimed} lets exactly one full node dispatch a request (0 rows: another
 * poller got it first), {@code claimed → completed} only by the node that claimed it.
 */
public class TriggerRequestStore {

    /** A request as the poller and the console see it. */
    public record Request(String id, String episodeId, String actorId, String expectationId, String sourceNode,
            String sourceStack, String sourceEnv, String status, String opts, String claimedBy, LocalDateTime insertedAt) {

        public boolean resume() {
            return opts != null && opts.contains("\"resume\":true");
        }
    }

    private final DatabaseVendor vendor;

    public TriggerRequestStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    public void insert(EntityManager em, String id, String episodeId, String actorId, String expectationId, String sourceNode,
            String sourceStack, String sourceEnv, boolean resume) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("id", id);
        c.put("episode_id", episodeId);
        c.put("actor_id", actorId);
        c.put("expectation_id", expectationId);
        c.put("source_node", sourceNode);
        c.put("source_stack", sourceStack);
        c.put("source_env", sourceEnv);
        c.put("status", "pending");
        c.put("opts", resume ? "{\"resume\":true}" : "{}");
        c.put("inserted_at", NativeSql.raw(vendor.utcNow()));
        c.put("updated_at", NativeSql.raw(vendor.utcNow()));
        new NativeSql().insert("cyclium_trigger_requests", c).executeUpdate(em);
    }

    /**
     * Pending requests, oldest first. Env is strict (NULL only for the unset env); stack, when given,
     * is exact.
     */
    @SuppressWarnings("unchecked")
    public List<Request> pending(EntityManager em, String env, String stack, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT " + COLUMNS + " FROM cyclium_trigger_requests WHERE status = 'pending' AND ")
                .is("source_env", env);
        if (stack != null) {
            sql.sql(" AND ").is("source_stack", stack);
        }
        sql.sql(" ORDER BY inserted_at, id");
        return rows(sql.query(em).setMaxResults(limit).getResultList());
    }

    /** How many requests {@link #pending} would return without a limit (the poller's gauge, when its page was full). */
    public long countPending(EntityManager em, String env, String stack) {
        NativeSql sql = new NativeSql().sql("SELECT COUNT(*) FROM cyclium_trigger_requests WHERE status = 'pending' AND ")
                .is("source_env", env);
        if (stack != null) {
            sql.sql(" AND ").is("source_stack", stack);
        }
        return ((Number) sql.query(em).getSingleResult()).longValue();
    }

    /** pending → claimed by {@code node}. 0 rows: another node claimed it first (normal). */
    public int claim(EntityManager em, String id, String node) {
        return new NativeSql().sql("UPDATE cyclium_trigger_requests SET status = 'claimed', claimed_by = ").value(node)
                .sql(", claimed_at = " + vendor.utcNow() + ", updated_at = " + vendor.utcNow() + " WHERE id = ").value(id)
                .sql(" AND status = 'pending'").executeUpdate(em);
    }

    /**
     * claimed → pending again, only by the claiming node: its hand-off failed (the request would
     * otherwise sit claimed for ever, and its episode wait for the recovery sweep's staleness).
     */
    public int release(EntityManager em, String id, String node) {
        return new NativeSql().sql("UPDATE cyclium_trigger_requests SET status = 'pending', claimed_by = NULL, claimed_at = NULL,"
                + " updated_at = " + vendor.utcNow() + " WHERE id = ").value(id)
                .sql(" AND status = 'claimed' AND claimed_by = ").value(node).executeUpdate(em);
    }

    /** claimed → completed (handed to the local runner), only by the claiming node. */
    public int complete(EntityManager em, String id, String node) {
        return new NativeSql().sql("UPDATE cyclium_trigger_requests SET status = 'completed', updated_at = " + vendor.utcNow()
                + " WHERE id = ").value(id).sql(" AND status = 'claimed' AND claimed_by = ").value(node).executeUpdate(em);
    }

    /** Pending requests older than {@code seconds} in this env become expired. */
    public int expire(EntityManager em, long seconds, String env) {
        return new NativeSql().sql("UPDATE cyclium_trigger_requests SET status = 'expired', updated_at = " + vendor.utcNow()
                        + " WHERE status = 'pending' AND inserted_at < ").around(-seconds, vendor::utcNowPlusSeconds)
                .sql(" AND ").is("source_env", env).executeUpdate(em);
    }

    @SuppressWarnings("unchecked")
    public List<Request> recent(EntityManager em, String status, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT " + COLUMNS + " FROM cyclium_trigger_requests");
        if (status != null) {
            sql.sql(" WHERE ").is("status", status);
        }
        sql.sql(" ORDER BY inserted_at DESC, id");
        return rows(sql.query(em).setMaxResults(limit).getResultList());
    }

    static final String COLUMNS = "id, episode_id, actor_id, expectation_id, source_node, source_stack, source_env, status,"
            + " opts, claimed_by, inserted_at";

    private static List<Request> rows(List<Object[]> rows) {
        List<Request> out = new ArrayList<>();
        for (Object[] r : rows) {
            Object t = r[10];
            LocalDateTime at = t instanceof java.sql.Timestamp ts ? ts.toLocalDateTime() : (LocalDateTime) t;
            out.add(new Request((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4], (String) r[5],
                    (String) r[6], (String) r[7], r[8] == null ? null : r[8].toString(), (String) r[9], at));
        }
        return out;
    }
}
