package io.cyclium.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;

/**
 * The baseline migration of every vendor applies, has the shape of the canonical H2 schema, and
 * enforces the uniqueness rules the runtime relies on when nodes race. Each test uses keys of its
 * own, so the tests of this class can share one database per vendor.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class BaselineMigrationTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    static final Set<String> TABLES = Set.of(
            "cyclium_nodes", "cyclium_episodes", "cyclium_episode_steps", "cyclium_episode_checkpoints",
            "cyclium_findings", "cyclium_outputs", "cyclium_work_claims", "cyclium_trigger_requests",
            "cyclium_actor_definitions", "cyclium_workflow_definitions", "cyclium_workflow_instances",
            "cyclium_output_records", "cyclium_demo_resources", "cyclium_retention_runs", "cyclium_retention_steps",
            "cyclium_workflow_steps", "cyclium_workflow_transitions", "cyclium_debounced_triggers", "cyclium_audit", "cyclium_pauses",
            "cyclium_workflow_definition_versions", "cyclium_bulk_actions", "cyclium_bulk_items", "cyclium_concurrency_slots",
            "cyclium_rate_buckets", "cyclium_waits", "cyclium_signals", "cyclium_concurrency_waiters");

    /** The newest migration in sql/&lt;vendor&gt;; every vendor has the same versions. */
    static final String LATEST_VERSION = "25";

    static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 30, 12, 0);

    // ---------------------------------------------------------------- migration

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_migration_applies_cleanly_and_creates_every_table(Vendor vendor) throws SQLException {
        TestDatabase db = databases.get(vendor);

        MigrationInfo current = db.flyway().info().current();
        assertThat(current.getVersion().getVersion()).isEqualTo(LATEST_VERSION);
        assertThat(current.getState()).isEqualTo(MigrationState.SUCCESS);
        assertThat(db.flyway().validateWithResult().validationSuccessful).isTrue();
        assertThat(db.flyway().migrate().migrationsExecuted).as("a second migrate has nothing to do").isZero();

        try (Connection c = db.connect()) {
            assertThat(SchemaShape.tables(c)).containsExactlyInAnyOrderElementsOf(TABLES);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"POSTGRESQL", "MARIADB"})
    void the_port_has_the_columns_keys_and_indexes_of_the_canonical_h2_schema(Vendor vendor) throws SQLException {
        List<String> expected;
        try (Connection c = databases.get(Vendor.H2).connect()) {
            expected = SchemaShape.facts(c);
        }
        if (vendor == Vendor.POSTGRESQL) {
            // a partial unique index does the work of H2's generated key columns
            expected.removeIf(fact -> fact.endsWith(" generated"));
        }
        try (Connection c = databases.get(vendor).connect()) {
            assertThat(SchemaShape.facts(c)).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void column_defaults_are_the_same_on_every_vendor(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String episode = insertEpisode(c, null);
            assertThat(row(c, "SELECT mode, attempts, max_attempts, turns_used, cancel_requested"
                    + " FROM cyclium_episodes WHERE id = ?", episode))
                    .containsExactly("live", 0, 3, 0, false);

            String output = insertOutput(c, episode, key("out"));
            assertThat(row(c, "SELECT attempts FROM cyclium_outputs WHERE id = ?", output)).containsExactly(0);

            String claim = key("claim");
            insertClaim(c, claim);
            assertThat(row(c, "SELECT attempt, fence FROM cyclium_work_claims WHERE dedupe_key = ?", claim))
                    .containsExactly(1, 1L);

            String actor = key("actor");
            update(c, "INSERT INTO cyclium_actor_definitions (actor_id, created_at, updated_at) VALUES (?, ?, ?)",
                    actor, NOW, NOW);
            assertThat(row(c, "SELECT enabled FROM cyclium_actor_definitions WHERE actor_id = ?", actor))
                    .containsExactly(true);

            String workflow = key("wf");
            update(c, "INSERT INTO cyclium_workflow_definitions (workflow_id, trigger_type, steps, created_at,"
                    + " updated_at) VALUES (?, 'event', '[]', ?, ?)", workflow, NOW, NOW);
            assertThat(row(c, "SELECT enabled FROM cyclium_workflow_definitions WHERE workflow_id = ?", workflow))
                    .containsExactly(true);

            String instance = UUID.randomUUID().toString();
            update(c, "INSERT INTO cyclium_workflow_instances (id, workflow_id, status, step_states, started_at,"
                    + " updated_at) VALUES (?, ?, 'running', '{}', ?, ?)", instance, workflow, NOW, NOW);
            assertThat(row(c, "SELECT subject_value, version FROM cyclium_workflow_instances WHERE id = ?", instance))
                    .containsExactly("_", 0L);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void timestamps_keep_their_microseconds(Vendor vendor) throws SQLException {
        LocalDateTime started = LocalDateTime.of(2026, 11, 30, 12, 34, 56, 123_456_000);
        LocalDateTime lastSeen = LocalDateTime.of(2026, 12, 31, 23, 59, 59, 999_999_000);
        try (Connection c = databases.get(vendor).connect()) {
            String node = key("node");
            update(c, "INSERT INTO cyclium_nodes (node_identity, mode, started_at, last_seen) VALUES (?, 'live', ?, ?)",
                    node, started, lastSeen);
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT started_at, last_seen FROM cyclium_nodes WHERE node_identity = ?")) {
                ps.setString(1, node);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getObject(1, LocalDateTime.class)).isEqualTo(started);
                    assertThat(rs.getObject(2, LocalDateTime.class)).isEqualTo(lastSeen);
                }
            }
        }
    }

    // ---------------------------------------------------------------- episodes: one live row per dedupe key

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_second_active_episode_with_the_same_dedupe_key_is_rejected(Vendor vendor) throws SQLException {
        assertSecondRowRejected(vendor, BaselineMigrationTest::insertEpisode);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void once_the_active_episode_is_archived_a_new_one_with_the_same_key_is_accepted(Vendor vendor)
            throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String dedupe = key("ep");
            archive(c, insertEpisode(c, dedupe));
            archive(c, insertEpisode(c, dedupe));
            insertEpisode(c, dedupe);

            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_episodes WHERE dedupe_key = ?", dedupe)).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void any_number_of_episodes_may_have_no_dedupe_key(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            List<String> ids = List.of(insertEpisode(c, null), insertEpisode(c, null), insertEpisode(c, null));

            for (String id : ids) {
                assertThat(count(c, "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ? AND dedupe_key IS NULL", id))
                        .isEqualTo(1);
            }
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void un_archiving_an_episode_whose_key_is_live_again_is_rejected(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String dedupe = key("ep");
            String old = insertEpisode(c, dedupe);
            archive(c, old);
            insertEpisode(c, dedupe);

            assertRejectedAsDuplicate(vendor,
                    () -> update(c, "UPDATE cyclium_episodes SET archived_at = NULL WHERE id = ?", old));
            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ? AND archived_at IS NOT NULL", old))
                    .isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void dedupe_keys_that_differ_only_in_case_or_trailing_space_are_different_keys(Vendor vendor)
            throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String dedupe = key("Ep");
            for (String variant : List.of(dedupe, dedupe.toLowerCase(), dedupe + " ")) {
                insertEpisode(c, variant);
                insertClaim(c, variant);
            }
            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_episodes WHERE archived_at IS NULL"
                    + " AND dedupe_key IN (?, ?, ?)", dedupe, dedupe.toLowerCase(), dedupe + " ")).isEqualTo(3);
        }
    }

    // ---------------------------------------------------------------- findings: one row per (key, status, env)

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_second_active_finding_for_the_same_key_and_env_is_rejected(Vendor vendor) throws SQLException {
        assertSecondRowRejected(vendor, activeFinding("prod"));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void the_same_finding_key_in_another_env_or_status_is_accepted(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String finding = key("f");
            insertFinding(c, finding, "prod", "active");
            insertFinding(c, finding, "staging", "active");
            insertFinding(c, finding, null, "active");
            insertFinding(c, finding, "prod", "cleared");

            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_findings WHERE finding_key = ?", finding)).isEqualTo(4);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void two_active_findings_without_env_for_one_key_collide(Vendor vendor) throws SQLException {
        assertSecondRowRejected(vendor, activeFinding(null));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_empty_env_is_the_same_env_as_no_env(Vendor vendor) throws SQLException {
        assertSecondRowRejected(vendor, activeFinding(null), activeFinding(""));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void superseded_findings_never_collide(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String finding = key("f");
            insertFinding(c, finding, "prod", "active");
            insertFinding(c, finding, "prod", "superseded");
            insertFinding(c, finding, "prod", "superseded");
            insertFinding(c, finding, null, "superseded");
            insertFinding(c, finding, null, "superseded");

            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_findings WHERE finding_key = ? AND status = 'superseded'",
                    finding)).isEqualTo(4);
        }
    }

    // ---------------------------------------------------------------- claims and outputs: one row per key

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_second_work_claim_with_the_same_dedupe_key_is_rejected(Vendor vendor) throws SQLException {
        assertSecondRowRejected(vendor, BaselineMigrationTest::insertClaim);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_second_output_with_the_same_dedupe_key_is_rejected(Vendor vendor) throws SQLException {
        // each output belongs to an episode of its own: only the dedupe key is shared
        assertSecondRowRejected(vendor, (c, key) -> insertOutput(c, insertEpisode(c, null), key));
    }

    // ---------------------------------------------------------------- generated key columns (H2, MariaDB)

    @ParameterizedTest(name = "on {0}")
    @EnumSource(value = Vendor.class, names = {"H2", "MARIADB"})
    void the_generated_key_columns_cannot_be_written(Vendor vendor) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String id = UUID.randomUUID().toString();
            assertRejectedAsGeneratedColumnWrite(vendor, () -> update(c,
                    "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, status, started_at,"
                            + " updated_at, active_dedupe_key) VALUES (?, 'a', 'e', 'manual', 'running', ?, ?, ?)",
                    id, NOW, NOW, "forged"));
            assertThat(count(c, "SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?", id)).isZero();

            String episode = insertEpisode(c, key("ep"));
            assertRejectedAsGeneratedColumnWrite(vendor, () -> update(c,
                    "UPDATE cyclium_episodes SET active_dedupe_key = ? WHERE id = ?", "forged", episode));

            String finding = insertFinding(c, key("f"), "prod", "active");
            assertRejectedAsGeneratedColumnWrite(vendor, () -> update(c,
                    "UPDATE cyclium_findings SET unique_key = ? WHERE id = ?", "forged", finding));
        }
    }

    // ---------------------------------------------------------------- assertions

    /** Inserts a row whose unique key is {@code key}. */
    @FunctionalInterface
    interface KeyedInsert {
        void insert(Connection c, String key) throws SQLException;
    }

    static void assertSecondRowRejected(Vendor vendor, KeyedInsert insert) throws SQLException {
        assertSecondRowRejected(vendor, insert, insert);
    }

    /** With a fresh key, {@code first} succeeds and then {@code second} is refused as a duplicate. */
    static void assertSecondRowRejected(Vendor vendor, KeyedInsert first, KeyedInsert second) throws SQLException {
        try (Connection c = databases.get(vendor).connect()) {
            String key = key("k");
            first.insert(c, key);

            assertRejectedAsDuplicate(vendor, () -> second.insert(c, key));
        }
    }

    /** The write fails with a unique-key violation: SQLState class 23, and that vendor's duplicate-key code. */
    static void assertRejectedAsDuplicate(Vendor vendor, ThrowingCallable write) {
        assertThatThrownBy(write).isInstanceOfSatisfying(SQLException.class, e -> {
            assertThat(e.getSQLState()).as("SQLState of %s", e).startsWith("23");
            assertThat(vendor.isUniqueViolation(e))
                    .as("a unique violation, not another constraint: SQLState %s, error code %d, %s",
                            e.getSQLState(), e.getErrorCode(), e.getMessage())
                    .isTrue();
        });
    }

    /** H2: 90154 "generated column cannot be assigned"; MariaDB (strict mode): 1906. */
    static void assertRejectedAsGeneratedColumnWrite(Vendor vendor, ThrowingCallable write) {
        int expected = vendor == Vendor.H2 ? 90154 : 1906;
        assertThatThrownBy(write).isInstanceOfSatisfying(SQLException.class, e ->
                assertThat(e.getErrorCode()).as("error code of %s", e).isEqualTo(expected));
    }

    // ---------------------------------------------------------------- rows

    static String key(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    static String insertEpisode(Connection c, String dedupeKey) throws SQLException {
        String id = UUID.randomUUID().toString();
        update(c, "INSERT INTO cyclium_episodes (id, actor_id, expectation_id, trigger_type, dedupe_key, status,"
                + " started_at, updated_at) VALUES (?, 'actor', 'expectation', 'manual', ?, 'running', ?, ?)",
                id, dedupeKey, NOW, NOW);
        return id;
    }

    static KeyedInsert activeFinding(String env) {
        return (c, findingKey) -> insertFinding(c, findingKey, env, "active");
    }

    static void archive(Connection c, String episodeId) throws SQLException {
        update(c, "UPDATE cyclium_episodes SET archived_at = ? WHERE id = ?", NOW, episodeId);
    }

    static String insertFinding(Connection c, String findingKey, String env, String status) throws SQLException {
        String id = UUID.randomUUID().toString();
        update(c, "INSERT INTO cyclium_findings (id, finding_key, env, status, finding_class, severity, actor_id,"
                + " raised_by_episode_id, raised_at, updated_at) VALUES (?, ?, ?, ?, 'drift', 'high', 'actor', ?, ?, ?)",
                id, findingKey, env, status, UUID.randomUUID().toString(), NOW, NOW);
        return id;
    }

    static void insertClaim(Connection c, String dedupeKey) throws SQLException {
        update(c, "INSERT INTO cyclium_work_claims (dedupe_key, state, owner_node, lease_until, claimed_at, work_type)"
                + " VALUES (?, 'claimed', 'node-1', ?, ?, 'episode')", dedupeKey, NOW.plusMinutes(1), NOW);
    }

    static String insertOutput(Connection c, String episodeId, String dedupeKey) throws SQLException {
        String id = UUID.randomUUID().toString();
        update(c, "INSERT INTO cyclium_outputs (id, episode_id, output_type, dedupe_key, status, created_at,"
                + " updated_at) VALUES (?, ?, 'ticket', ?, 'pending', ?, ?)", id, episodeId, dedupeKey, NOW, NOW);
        return id;
    }

    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            return ps.executeUpdate();
        }
    }

    static long count(Connection c, String sql, Object... params) throws SQLException {
        return ((Number) row(c, sql, params).get(0)).longValue();
    }

    /**
     * The single row {@code sql} selects, with numbers and booleans normalised across drivers
     * (INTEGER as Integer, BIGINT as Long, BOOLEAN/BIT/TINYINT(1) as Boolean).
     */
    static List<Object> row(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params); ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("a row from %s", sql).isTrue();
            List<Object> values = new ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                switch (rs.getMetaData().getColumnType(i)) {
                    case java.sql.Types.BOOLEAN, java.sql.Types.BIT, java.sql.Types.TINYINT ->
                            values.add(rs.getBoolean(i));
                    case java.sql.Types.INTEGER -> values.add(rs.getInt(i));
                    case java.sql.Types.BIGINT -> values.add(rs.getLong(i));
                    default -> values.add(rs.getObject(i));
                }
            }
            assertThat(rs.next()).as("a single row from %s", sql).isFalse();
            return values;
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }
}
