package io.cyclium.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/** Rows the client-side probes write straight into the Arquillian node's H2 database. */
final class ProbeRows {

    private ProbeRows() {
    }

    /**
     * An episode of any actor (also one no node deploys) whose row was last touched
     * {@code quietSeconds} ago on the database's clock; a {@code running} one is an orphan of a
     * node that died.
     */
    static String episode(String actor, String expectation, String status, String env, int quietSeconds) throws SQLException {
        String id = UUID.randomUUID().toString();
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, phase, attempts,"
                        + " max_attempts, run_node, source_env, summary, started_at, updated_at)"
                        + " VALUES (?, ?, ?, 'manual', ?, ?, 'observe', 1, 3, 'a-node-that-died', ?, 'probe row',"
                        + " DATEADD('SECOND', ?, LOCALTIMESTAMP), DATEADD('SECOND', ?, LOCALTIMESTAMP))")) {
            s.setString(1, id);
            s.setString(2, actor);
            s.setString(3, expectation);
            s.setString(4, "probe:" + id);
            s.setString(5, status);
            s.setString(6, env);
            s.setInt(7, -quietSeconds);
            s.setInt(8, -quietSeconds);
            s.executeUpdate();
        }
        return id;
    }

    /** A journal row of {@code episodeId}'s strategy, written by the node that died, {@code quietSeconds} ago. */
    static void step(String episodeId, int stepNo, String kind, int quietSeconds) throws SQLException {
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO cyclium_episode_steps (episode_id, step_no, kind, node_identity, created_at)"
                        + " VALUES (?, ?, ?, 'a-node-that-died', DATEADD('SECOND', ?, LOCALTIMESTAMP))")) {
            s.setString(1, episodeId);
            s.setInt(2, stepNo);
            s.setString(3, kind);
            s.setInt(4, -quietSeconds);
            s.executeUpdate();
        }
    }

    /** An active finding of {@code findingClass} in {@code env}. */
    static String finding(String findingClass, String env) throws SQLException {
        String id = UUID.randomUUID().toString();
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO cyclium_findings (id, finding_key, env, status, finding_class, severity, actor_id,"
                        + " raised_by_episode_id, raised_at, updated_at)"
                        + " VALUES (?, ?, ?, 'active', ?, 'low', 'probe', ?, LOCALTIMESTAMP, LOCALTIMESTAMP)")) {
            s.setString(1, id);
            s.setString(2, "probe:" + id);
            s.setString(3, env);
            s.setString(4, findingClass);
            s.setString(5, id);
            s.executeUpdate();
        }
        return id;
    }

    /** A settled (done) work claim on {@code key}, as a finished episode leaves behind. */
    static void claim(String key) throws SQLException {
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO cyclium_work_claims (dedupe_key, state, owner_node, lease_until, claimed_at, finished_at, work_type)"
                        + " VALUES (?, 'done', 'a-node-that-died', LOCALTIMESTAMP, LOCALTIMESTAMP, LOCALTIMESTAMP, 'episode')")) {
            s.setString(1, key);
            s.executeUpdate();
        }
    }
}
