package io.cyclium.recovery;

import io.cyclium.store.NativeSql;
import io.cyclium.testing.TestJpa;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The rows recovery, drain and heartbeat work on, made and read with plain SQL on the database's
 * own clock: a test that needs a row quiet for ten minutes writes it ten minutes old instead of
 * waiting.
 */
final class RecoveryRows {

    /** What a test asserts about an episode row. */
    record EpisodeRow(String status, String phase, int attempts, String errorClass, String errorDetail, String runNode) {
    }

    private final TestJpa db;

    RecoveryRows(TestJpa db) {
        this.db = db;
    }

    /** A running episode of {@code reports/digest} on a node that died, quiet for ten minutes; change what the test needs. */
    Episode episode() {
        return new Episode();
    }

    final class Episode {
        private String actor = "reports";
        private int attempts = 1;
        private int maxAttempts = 3;
        private String phase;
        private int quietSeconds = 600;
        private String runNode = "a-node-that-died";
        private String stack;
        private String env;
        private boolean queued;
        private boolean cancelRequested;
        private String workflowInstance;
        private String workflowStep;
        private String dedupeKey;
        private String id;
        private String version;

        /** Its id and dedupe key (both random otherwise). */
        Episode identified(String id, String dedupeKey) {
            this.id = id;
            this.dedupeKey = dedupeKey;
            return this;
        }

        Episode actor(String actorId) {
            this.actor = actorId;
            return this;
        }

        Episode attempts(int attempts, int maxAttempts) {
            this.attempts = attempts;
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** An operator restarted, approved or resolved it (phase resume due); {@code runNode} null: nobody took it up. */
        Episode resumeDue(String runNode) {
            this.phase = RecoveryStore.RESUME_DUE;
            this.runNode = runNode;
            return this;
        }

        Episode interrupted() {
            this.phase = RecoveryStore.INTERRUPTED;
            return this;
        }

        Episode quietFor(int seconds) {
            this.quietSeconds = seconds;
            return this;
        }

        Episode on(String node) {
            this.runNode = node;
            return this;
        }

        Episode scope(String stack, String env) {
            this.stack = stack;
            this.env = env;
            return this;
        }

        Episode queued() {
            this.queued = true;
            return this;
        }

        /** An episode that runs step {@code stepId} of a workflow instance (no instance row: only the columns). */
        Episode workflowStep(String instanceId, String stepId) {
            this.workflowInstance = instanceId;
            this.workflowStep = stepId;
            return this;
        }

        Episode cancelRequested() {
            this.cancelRequested = true;
            return this;
        }

        /** Started with version {@code version} of its expectation. */
        Episode version(String version) {
            this.version = version;
            return this;
        }

        String insert() {
            String id = this.id != null ? this.id : UUID.randomUUID().toString();
            String then = db.vendor().utcNowPlusSeconds(String.valueOf(-quietSeconds));
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("id", id);
            c.put("actor_id", actor);
            c.put("expectation_id", "digest");
            c.put("trigger_type", "manual");
            c.put("trigger_ref", "{\"type\":\"manual\",\"payload\":{}}");
            c.put("dedupe_key", dedupeKey != null ? dedupeKey : "orphan:" + id);
            c.put("status", "running");
            c.put("phase", phase);
            c.put("mode", "live");
            c.put("attempts", attempts);
            c.put("max_attempts", maxAttempts);
            c.put("turns_used", 0);
            c.put("run_node", runNode);
            c.put("cancel_requested", cancelRequested);
            c.put("source_stack", stack);
            c.put("source_env", env);
            c.put("workflow_instance_id", workflowInstance);
            c.put("workflow_step_id", workflowStep);
            c.put("expectation_version", version);
            c.put("queued_at", queued ? NativeSql.raw(then) : null);
            c.put("started_at", NativeSql.raw(then));
            c.put("updated_at", NativeSql.raw(then));
            db.run(em -> new NativeSql().insert("cyclium_episodes", c).executeUpdate(em));
            return id;
        }
    }

    /** A journal entry the episode's task wrote before it stopped. */
    void step(String episodeId, int stepNo, String kind, String node) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("episode_id", episodeId);
        c.put("step_no", stepNo);
        c.put("kind", kind);
        c.put("node_identity", node);
        c.put("created_at", NativeSql.raw(db.vendor().utcNowPlusSeconds("-600")));
        db.run(em -> new NativeSql().insert("cyclium_episode_steps", c).executeUpdate(em));
    }

    /** A node row last seen an hour ago. */
    void node(String name) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("node_identity", name);
        c.put("mode", "full");
        c.put("started_at", NativeSql.raw(db.vendor().utcNowPlusSeconds("-3600")));
        c.put("last_seen", NativeSql.raw(db.vendor().utcNowPlusSeconds("-3600")));
        db.run(em -> new NativeSql().insert("cyclium_nodes", c).executeUpdate(em));
    }

    /** A recovery policy row for an actor this deployment does not compile. */
    void definition(String actorId, String policy) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("actor_id", actorId);
        c.put("recovery_policy", policy);
        c.put("created_at", NativeSql.raw(db.vendor().utcNow()));
        c.put("updated_at", NativeSql.raw(db.vendor().utcNow()));
        db.run(em -> new NativeSql().insert("cyclium_actor_definitions", c).executeUpdate(em));
    }

    EpisodeRow row(String id) {
        Object[] r = (Object[]) db.inNewTransaction(em -> em.createNativeQuery("SELECT status, phase, attempts, error_class,"
                + " error_detail, run_node FROM cyclium_episodes WHERE id = ?1").setParameter(1, id).getSingleResult());
        return new EpisodeRow((String) r[0], (String) r[1], ((Number) r[2]).intValue(), (String) r[3], (String) r[4], (String) r[5]);
    }

    /** Why recovery leaves the episode waiting (null: it does not). */
    String recoveryWaiting(String id) {
        return (String) db.inNewTransaction(em -> em.createNativeQuery("SELECT recovery_waiting FROM cyclium_episodes"
                + " WHERE id = ?1").setParameter(1, id).getSingleResult());
    }

    /** The journal's kinds in step order, each as {@code <step_no> <kind> <node>}. */
    @SuppressWarnings("unchecked")
    List<String> journal(String id) {
        List<Object[]> rows = db.inNewTransaction(em -> em.createNativeQuery("SELECT step_no, kind, node_identity"
                + " FROM cyclium_episode_steps WHERE episode_id = ?1 ORDER BY step_no").setParameter(1, id).getResultList());
        return rows.stream().map(r -> ((Number) r[0]).intValue() + " " + r[1] + " " + r[2]).toList();
    }

    @SuppressWarnings("unchecked")
    String stepDetail(String id, String kind) {
        List<Object> rows = db.inNewTransaction(em -> em.createNativeQuery("SELECT detail FROM cyclium_episode_steps"
                + " WHERE episode_id = ?1 AND kind = ?2").setParameter(1, id).setParameter(2, kind).getResultList());
        return rows.isEmpty() ? null : String.valueOf(rows.get(0));
    }

    /** Whether the episode row was written in the last minute (database clock). */
    boolean updatedRecently(String id) {
        return count("SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1 AND updated_at > "
                + db.vendor().utcNowPlusSeconds("-60"), id) == 1;
    }

    boolean nodeSeenRecently(String name) {
        return count("SELECT COUNT(*) FROM cyclium_nodes WHERE node_identity = ?1 AND last_seen > "
                + db.vendor().utcNowPlusSeconds("-60"), name) == 1;
    }

    boolean nodeStopped(String name) {
        return count("SELECT COUNT(*) FROM cyclium_nodes WHERE node_identity = ?1 AND stopped_at IS NOT NULL", name) == 1;
    }

    private long count(String sql, String param) {
        return ((Number) db.inNewTransaction(em -> em.createNativeQuery(sql).setParameter(1, param).getSingleResult())).longValue();
    }
}
