package io.cyclium.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;

/**
 * The Cyclium schema shared with other owners: JBeret's JDBC job repository on WildFly creates its
 * JOB_* tables in the Cyclium database when the server starts, before Cyclium's first deployment.
 * Every test starts from a fresh, empty database of its own and migrates it as a node does at boot.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class SharedSchemaMigrationTest {

    /** JBeret's repository tables, as its DDL names them (unquoted). */
    static final List<String> JBERET_TABLES = List.of("JOB_INSTANCE", "JOB_EXECUTION", "STEP_EXECUTION", "PARTITION_EXECUTION");

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_schema_with_only_foreign_tables_gets_every_migration_after_a_baseline_at_version_0(Vendor vendor)
            throws SQLException {
        try (TestDatabase db = TestDatabase.empty(vendor)) {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                for (String table : JBERET_TABLES) {
                    s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, note VARCHAR(20))");
                }
                s.execute("INSERT INTO JOB_INSTANCE (id, note) VALUES (1, 'jberet')");
            }

            MigrateResult result = SchemaMigrator.migrate(db.flywayConfiguration());

            assertThat(result.targetSchemaVersion).isEqualTo(BaselineMigrationTest.LATEST_VERSION);
            MigrationInfo[] applied = db.flyway().info().applied();
            assertThat(applied[0].getVersion().getVersion()).as("the baseline marker").isEqualTo("0");
            assertThat(applied[0].getType().isBaseline()).isTrue();
            assertThat(Stream.of(applied).skip(1).map(m -> m.getVersion().getVersion()))
                    .as("every migration from V1 on applied").startsWith("1").contains(BaselineMigrationTest.LATEST_VERSION)
                    .hasSize(sqlVersions(db));
            try (Connection c = db.connect()) {
                assertThat(SchemaShape.tables(c)).containsExactlyInAnyOrderElementsOf(BaselineMigrationTest.TABLES);
                assertThat(ExistingSchema.tableNames(c).keySet()).as("the foreign tables are left alone")
                        .containsAll(JBERET_TABLES.stream().map(String::toLowerCase).toList());
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT note FROM JOB_INSTANCE WHERE id = 1")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("jberet");
                }
            }
            assertThat(SchemaMigrator.migrate(db.flywayConfiguration()).migrationsExecuted)
                    .as("the next boot has nothing to do").isZero();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_schema_with_cyclium_tables_but_no_history_is_refused_with_their_names(Vendor vendor) throws SQLException {
        try (TestDatabase db = TestDatabase.empty(vendor)) {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE JOB_INSTANCE (id BIGINT PRIMARY KEY)");
                s.execute("CREATE TABLE cyclium_nodes (node_identity VARCHAR(20) PRIMARY KEY)");
            }

            assertThatThrownBy(() -> SchemaMigrator.migrate(db.flywayConfiguration()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContainingAll("has Cyclium tables [", "no Flyway history table cyclium_schema_history")
                    // names as the database stores them: upper case on H2
                    .satisfies(e -> assertThat(e.getMessage()).containsIgnoringCase("cyclium_nodes")
                            .doesNotContainIgnoringCase("JOB_INSTANCE"));
            try (Connection c = db.connect()) {
                assertThat(ExistingSchema.tableNames(c)).as("nothing created").doesNotContainKey("cyclium_schema_history")
                        .hasSize(2);
            }
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_empty_schema_is_migrated_without_a_baseline_marker(Vendor vendor) {
        try (TestDatabase db = TestDatabase.empty(vendor)) {
            SchemaMigrator.migrate(db.flywayConfiguration());

            assertThat(Stream.of(db.flyway().info().applied()).filter(m -> m.getType().isBaseline())).isEmpty();
            assertThat(db.flyway().info().current().getVersion().getVersion()).isEqualTo(BaselineMigrationTest.LATEST_VERSION);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void foreign_tables_added_after_the_first_migration_change_nothing(Vendor vendor) throws SQLException {
        try (TestDatabase db = TestDatabase.create(vendor)) {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                for (String table : JBERET_TABLES) {
                    s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY)");
                }
            }

            assertThat(SchemaMigrator.migrate(db.flywayConfiguration()).migrationsExecuted).isZero();
            assertThat(Stream.of(db.flyway().info().applied()).filter(m -> m.getType().isBaseline())).isEmpty();
        }
    }

    /** How many V*.sql files the vendor's folder has (every one must be applied). */
    private static int sqlVersions(TestDatabase db) {
        List<String> versions = new ArrayList<>();
        for (MigrationInfo m : db.flyway().info().all()) {
            if (m.getVersion() != null && !m.getType().isBaseline()) {
                versions.add(m.getVersion().getVersion());
            }
        }
        return versions.size();
    }
}
