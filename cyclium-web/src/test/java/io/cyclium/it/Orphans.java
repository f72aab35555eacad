package io.cyclium.it;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import io.cyclium.store.Tx;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Makes the rows a dead node leaves behind: a running episode whose journal went quiet ten minutes
 * ago (on the database's own clock), as if its node had been killed.
 */
final class Orphans {

    private Orphans() {
    }

    static String insert(Tx tx, DatabaseVendor vendor, String expectation, int attempts, int maxAttempts, String phase,
            int quietForSeconds, String env) {
        String id = insertNeverRan(tx, vendor, expectation, attempts, maxAttempts, phase, quietForSeconds, env);
        // the dead node ran one step of the strategy: recovery applies the episode's policy
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("episode_id", id);
        step.put("step_no", 1);
        step.put("kind", "observation");
        step.put("node_identity", "a-node-that-died");
        step.put("created_at", NativeSql.raw(vendor.utcNowPlusSeconds(String.valueOf(-quietForSeconds))));
        tx.run(em -> new NativeSql().insert("cyclium_episode_steps", step).executeUpdate(em));
        return id;
    }

    /** The same row without a journal: the episode waited in the dead node's queue and never ran a step. */
    static String insertNeverRan(Tx tx, DatabaseVendor vendor, String expectation, int attempts, int maxAttempts,
            String phase, int quietForSeconds, String env) {
        String id = UUID.randomUUID().toString();
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("id", id);
        c.put("actor_id", "it_actor");
        c.put("expectation_id", expectation);
        c.put("trigger_type", "manual");
        c.put("trigger_ref", "{\"type\":\"manual\",\"payload\":{\"orphan\":true}}");
        c.put("dedupe_key", "orphan:" + id);
        c.put("status", "running");
        c.put("phase", phase);
        c.put("attempts", attempts);
        c.put("max_attempts", maxAttempts);
        c.put("run_node", "a-node-that-died");
        c.put("source_env", env);
        c.put("started_at", NativeSql.raw(vendor.utcNowPlusSeconds(String.valueOf(-quietForSeconds))));
        c.put("updated_at", NativeSql.raw(vendor.utcNowPlusSeconds(String.valueOf(-quietForSeconds))));
        tx.run(em -> new NativeSql().insert("cyclium_episodes", c).executeUpdate(em));
        return id;
    }
}
