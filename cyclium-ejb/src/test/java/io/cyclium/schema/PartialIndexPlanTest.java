package io.cyclium.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On PostgreSQL (V11) the sweep's, the drain's and a workflow instance's indexes hold only the
 * rows those reads ask for: finished episodes leave the first two, plain episodes never enter the
 * third, so the write path pays for fewer index entries; and the reads still find their rows
 * through them; and (V23) an episode with no stack, no env and no archive time has no entry in
 * the list-by-stack, list-by-env and purge indexes. 20,000 finished episodes, 12 running ones (on
 * two nodes, in an env and in none), 6 steps of one workflow instance, 9 of a stack and an env, 8
 * archived; a database of its own, so the table is this test's rows only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartialIndexPlanTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final int FINISHED = 20_000;
    private TestDatabase db;

    @BeforeAll
    void load() throws SQLException {
        db = databases.get(Vendor.POSTGRESQL);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.executeUpdate(insert("'done'", "NULL", "NULL", "NULL", "done-", FINISHED));
            s.executeUpdate(insert("'running'", "'node-1'", "'env1'", "NULL", "run-env1-", 5));
            s.executeUpdate(insert("'running'", "'node-2'", "NULL", "NULL", "run-noenv-", 7));
            s.executeUpdate(insert("'done'", "NULL", "NULL", "'wf-1'", "wf-", 6));
            // V23: a few finished episodes of a stack and an env, and a few archived ones
            s.executeUpdate(insert("'done'", "NULL", "'env2'", "NULL", "env2-", 9));
            s.executeUpdate("UPDATE cyclium_episodes SET source_stack = 'stack1' WHERE dedupe_key LIKE 'env2-%'");
            s.executeUpdate(insert("'done'", "NULL", "NULL", "NULL", "archived-", 8));
            s.executeUpdate("UPDATE cyclium_episodes SET archived_at = finished_at WHERE dedupe_key LIKE 'archived-%'");
            // statistics for the planner; the entries are measured by the indexes' sizes, not by
            // pg_class.reltuples, which VACUUM may leave at the index's creation-time count while
            // another session's snapshot keeps dead rows alive (it then skips the index scan)
            s.execute("ANALYZE cyclium_episodes");
        }
    }

    @Test
    void a_finished_or_plain_episode_has_no_entry_in_the_partial_indexes() throws SQLException {
        // a B-tree of a dozen entries is its meta page and one leaf; one of 20,000 takes dozens of leaves
        assertThat(indexPages("ix_cyclium_episodes_env_status")).as("running episodes only: meta page and one leaf").isEqualTo(2);
        assertThat(indexPages("ix_cyclium_episodes_run_node")).as("running episodes only: meta page and one leaf").isEqualTo(2);
        assertThat(indexPages("ix_cyclium_episodes_workflow")).as("workflow steps only: meta page and one leaf").isEqualTo(2);
        assertThat(indexPages("ix_cyclium_episodes_status_list")).as("a full index, for comparison: every episode")
                .isGreaterThan(20);
    }

    @Test
    void an_episode_without_stack_env_or_archive_time_has_no_entry_in_their_indexes() throws SQLException {
        // V23: nine episodes of stack1/env2 and eight archived ones among the 20,000 with none of them
        assertThat(indexPages("ix_cyclium_episodes_stack_list")).as("episodes of a stack only: meta page and one leaf").isEqualTo(2);
        assertThat(indexPages("ix_cyclium_episodes_env_list")).as("episodes of an env only: meta page and one leaf").isEqualTo(2);
        assertThat(indexPages("ix_cyclium_episodes_archived")).as("archived episodes only: meta page and one leaf").isEqualTo(2);
    }

    @Test
    void the_list_by_stack_or_env_and_the_purge_find_their_rows_through_the_partial_indexes() throws SQLException {
        // EpisodeListing's first page for one stack, one env (the value bound, as the list sends it)
        assertThat(explainBound("SELECT e.id FROM cyclium_episodes e WHERE 1 = 1 AND e.source_stack = ?"
                + " ORDER BY e.started_at DESC, e.id DESC LIMIT 50", "stack1")).contains("ix_cyclium_episodes_stack_list");
        assertThat(explainBound("SELECT e.id FROM cyclium_episodes e WHERE 1 = 1 AND e.source_env = ?"
                + " ORDER BY e.started_at DESC, e.id DESC LIMIT 50", "env2")).contains("ix_cyclium_episodes_env_list");
        // RetentionStore's purge condition
        assertThat(explain("SELECT id FROM cyclium_episodes WHERE archived_at IS NOT NULL"
                + " AND archived_at < (CURRENT_TIMESTAMP AT TIME ZONE 'UTC')")).contains("ix_cyclium_episodes_archived");
        // and the list's "no stack" reads the rows in order without a sort of the table
        assertThat(explain("SELECT e.id FROM cyclium_episodes e WHERE 1 = 1 AND e.source_stack IS NULL"
                + " ORDER BY e.started_at DESC, e.id DESC LIMIT 50")).contains("ix_cyclium_episodes_started").doesNotContain("Sort");
    }

    @Test
    void the_recovery_sweep_finds_running_episodes_of_its_env_through_the_partial_index() throws SQLException {
        // the literal part of RecoveryStore.listOrphans' WHERE, for a node in env1 and one in none
        assertThat(explain("SELECT e.id FROM cyclium_episodes e WHERE e.status = 'running' AND e.archived_at IS NULL"
                + " AND e.source_env = 'env1' ORDER BY e.started_at")).contains("ix_cyclium_episodes_env_status");
        // with no env the partial index selects no fewer rows than status = 'running' of the list's
        // (status, started_at, id), which also gives the order: either reads the running rows only
        assertThat(explain("SELECT e.id FROM cyclium_episodes e WHERE e.status = 'running' AND e.archived_at IS NULL"
                + " AND e.source_env IS NULL ORDER BY e.started_at")).doesNotContain("Seq Scan")
                .containsPattern("ix_cyclium_episodes_(env_status|status_list)");
    }

    @Test
    void the_drain_and_the_cancel_relay_find_this_nodes_running_episodes_through_the_partial_index() throws SQLException {
        // RecoveryStore.stampInterrupted and LeaseRenewal's cancel relay
        assertThat(explain("SELECT id FROM cyclium_episodes WHERE run_node = 'node-1' AND status = 'running' ORDER BY id"))
                .contains("ix_cyclium_episodes_run_node");
        assertThat(explain("SELECT id FROM cyclium_episodes WHERE status = 'running' AND cancel_requested = true"
                + " AND run_node = 'node-2'")).contains("ix_cyclium_episodes_run_node");
    }

    @Test
    void a_workflow_instances_step_episodes_are_found_through_the_partial_index() throws SQLException {
        // WorkflowQueries: the instance's step episodes
        assertThat(explain("SELECT id FROM cyclium_episodes WHERE workflow_instance_id = 'wf-1'"))
                .contains("ix_cyclium_episodes_workflow");
    }

    private static String insert(String status, String runNode, String env, String workflow, String keyPrefix, int rows) {
        return "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status, run_node,"
                + " source_env, workflow_instance_id, started_at, finished_at, updated_at)"
                + " SELECT gen_random_uuid()::text, 'bulk', 'plan', 'event', '" + keyPrefix + "' || g, " + status + ", "
                + runNode + ", " + env + ", " + workflow + ", t, CASE WHEN " + status + " = 'running' THEN NULL ELSE t END, t"
                + " FROM generate_series(1, " + rows + ") g CROSS JOIN LATERAL"
                + " (SELECT (clock_timestamp() AT TIME ZONE 'UTC') - g * INTERVAL '1 millisecond' AS t) s";
    }

    /** The index's size in pages; {@code regclass} finds it on this test's schema (others' have the same names). */
    private long indexPages(String index) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT pg_relation_size(CAST(? AS regclass)) / current_setting('block_size')::int")) {
            s.setString(1, index);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("index " + index).isTrue();
                return rs.getLong(1);
            }
        }
    }

    /**
     * The generic plan (no value known) of a statement with one bound text value: what PostgreSQL
     * may switch a prepared statement to after five runs, so the index must serve it too.
     */
    private String explainBound(String sql, String value) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = db.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET plan_cache_mode = force_generic_plan");
            }
            try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
                p.setString(1, value);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return out.toString();
    }

    private String explain(String sql) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                out.append(rs.getString(1)).append('\n');
            }
        }
        return out.toString();
    }
}
