package io.cyclium.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A step's advance on PostgreSQL reads its instance, the steps and the instance's last transition
 * number in one statement, on the group commit's one writer. PostgreSQL plans a prepared statement
 * for its values five times, then keeps one plan for all values if that plan's estimate is no
 * worse. With statistics taken while the tables were small (a node's first minutes, a benchmark's
 * early ANALYZE) and many rows since, the last-number read through (instance_id, created_at) was
 * estimated dearer for "any instance" than for a new instance's id, so the statement was planned
 * anew on every call: 0.25-0.3 ms of the writer's time per step. Through (instance_id, seq) (V25)
 * the last number is one index entry whatever the estimate, and the one plan is kept.
 *
 * <p>The test owns a database: 50 instances, ANALYZE, autovacuum off on the four tables, 5,000
 * instances more; then the read, 30 times in one transaction (one connection, one prepared statement:
 * pgjdbc prepares it on the server from its fifth run), and PostgreSQL's own count of the plans it used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeldInstanceReadKeepsItsPlanTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private TestDatabase db;
    private TestJpa jpa;

    @BeforeAll
    void load() throws SQLException {
        db = databases.get(Vendor.POSTGRESQL);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            insert(s, 1, 50);
            s.execute("ANALYZE");
            for (String table : List.of("cyclium_workflow_instances", "cyclium_workflow_steps", "cyclium_workflow_transitions",
                    "cyclium_episodes")) {
                s.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
            }
            insert(s, 51, 5_050);
        }
        jpa = databases.jpa(Vendor.POSTGRESQL);
    }

    @Test
    void the_read_of_a_held_instance_with_its_steps_keeps_one_plan_for_every_instance_with_statistics_of_smaller_tables() {
        WorkflowQueries queries = new WorkflowQueries(DatabaseVendor.POSTGRESQL);
        long[] plans = jpa.inNewTransaction(em -> {
            for (int i = 5_000; i < 5_030; i++) {
                WorkflowQueries.Held held = queries.heldInstanceWithSteps(em, "inst-" + i).orElseThrow();
                assertThat(held.steps().steps()).as("the three steps of inst-" + i).hasSize(3);
                assertThat(held.steps().lastTransition()).as("its last transition number").isEqualTo(6);
            }
            Object[] row = (Object[]) em.createNativeQuery("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                    + " WHERE statement LIKE '%FOR NO KEY UPDATE OF i%'").getSingleResult();
            return new long[] {((Number) row[0]).longValue(), ((Number) row[1]).longValue()};
        });
        assertThat(plans[0]).as("runs on the one plan kept for every instance (planned once; %d planned for their values)", plans[1])
                .isGreaterThanOrEqualTo(20);
    }

    /** Instances {@code from..to} of one workflow, each with three done steps, their episodes and six transitions. */
    private static void insert(Statement s, int from, int to) throws SQLException {
        String series = " FROM generate_series(" + from + ", " + to + ") g";
        String steps = " CROSS JOIN (VALUES ('a'), ('b'), ('c')) v(step)";
        s.executeUpdate("INSERT INTO cyclium_workflow_instances (id, workflow_id, status, step_states, subject_value, started_at,"
                + " updated_at) SELECT 'inst-' || g, 'plan', 'running', '{}', 'subject-' || g, now(), now()" + series);
        s.executeUpdate("INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, status, started_at, updated_at,"
                + " workflow_instance_id, workflow_step_id, summary) SELECT 'ep-' || g || step, 'plan', 'plan', 'workflow', 'done',"
                + " now(), now(), 'inst-' || g, step, 'ok'" + series + steps);
        s.executeUpdate("INSERT INTO cyclium_workflow_steps (instance_id, step_id, state, episode_id, updated_at)"
                + " SELECT 'inst-' || g, step, 'completed', 'ep-' || g || step, now()" + series + steps);
        s.executeUpdate("INSERT INTO cyclium_workflow_transitions (id, instance_id, step_id, to_state, seq, node_identity, created_at)"
                + " SELECT 'tr-' || g || step || k, 'inst-' || g, step, 'running', k + CASE step WHEN 'b' THEN 2 WHEN 'c' THEN 4 ELSE 0 END,"
                + " 'node', now()" + series + steps + " CROSS JOIN generate_series(1, 2) k");
    }
}
