package io.cyclium.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The tables in the Cyclium datasource's own schema before Flyway runs, and how Flyway may start
 * on them. Cyclium owns only the tables named {@code cyclium_*}; the schema may be shared with
 * others — on WildFly JBeret's JDBC job repository creates {@code JOB_INSTANCE},
 * {@code JOB_EXECUTION}, {@code STEP_EXECUTION} and {@code PARTITION_EXECUTION} there when the
 * server starts, before Cyclium is first deployed.
 *
 * <ul>
 * <li>history table present: Flyway's normal path (it validates and applies what is new);</li>
 * <li>no history and no {@code cyclium_*} table: nothing of Cyclium is there yet, so Flyway
 *     records a baseline at version 0 (below V1) when the schema holds foreign tables and applies
 *     every migration — Flyway itself would refuse any non-empty schema;</li>
 * <li>{@code cyclium_*} tables without a history: refused. Nobody knows their version (created by
 *     hand, or the history table dropped); baselining would run V1 over them.</li>
 * </ul>
 */
final class ExistingSchema {

    static final String HISTORY_TABLE = "cyclium_schema_history";
    static final String BASELINE_VERSION = "0";

    private final String name;
    /** Every table of the schema: lower-case name → name as stored. */
    private final Map<String, String> tables;

    private ExistingSchema(String name, Map<String, String> tables) {
        this.name = name;
        this.tables = tables;
    }

    static ExistingSchema of(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            // MariaDB has no schemas under its databases: the catalog is the database
            String name = c.getSchema() != null ? c.getSchema() : c.getCatalog();
            return new ExistingSchema(name, tableNames(c));
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot list the tables of the Cyclium datasource " + SchemaMigrator.DATASOURCE
                    + ": " + e.getMessage(), e);
        }
    }

    /** The tables of the connection's own schema (catalog on MariaDB): lower-case name → name as stored. */
    static Map<String, String> tableNames(Connection c) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        Map<String, String> names = new TreeMap<>();
        try (ResultSet rs = md.getTables(c.getCatalog(), escape(md, c.getSchema()), "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String stored = rs.getString("TABLE_NAME");
                names.put(stored.toLowerCase(Locale.ROOT), stored);
            }
        }
        return names;
    }

    /** Schema names contain '_', a LIKE wildcard in metadata patterns. */
    private static String escape(DatabaseMetaData md, String name) throws SQLException {
        return name == null ? null : name.replace("_", md.getSearchStringEscape() + "_");
    }

    boolean hasHistory() {
        return tables.containsKey(HISTORY_TABLE);
    }

    /** Tables named cyclium_* other than the history table, as stored. */
    List<String> cycliumTables() {
        return tables.entrySet().stream().filter(t -> t.getKey().startsWith("cyclium_") && !t.getKey().equals(HISTORY_TABLE))
                .map(Map.Entry::getValue).toList();
    }

    /** Tables of other owners (JBeret's JOB_* on WildFly, say), as stored. */
    List<String> foreignTables() {
        return tables.entrySet().stream().filter(t -> !t.getKey().startsWith("cyclium_")).map(Map.Entry::getValue).toList();
    }

    /**
     * Flyway's settings for this schema: a baseline at version 0 when Cyclium is not there yet, so
     * foreign tables do not stop the first migration. Throws, naming the tables, when Cyclium
     * tables exist without a history.
     */
    FluentConfiguration admit(FluentConfiguration flyway) {
        if (hasHistory()) {
            return flyway;
        }
        if (!cycliumTables().isEmpty()) {
            throw new IllegalStateException("The Cyclium schema " + name + " has Cyclium tables " + cycliumTables()
                    + " but no Flyway history table " + HISTORY_TABLE + ", so their version is unknown (created by hand,"
                    + " or the history table was dropped). Cyclium migrates only a schema without cyclium_* tables or one"
                    + " with its history: restore " + HISTORY_TABLE + ", drop the cyclium_* tables, or point "
                    + SchemaMigrator.DATASOURCE + " at another schema. Tables of other owners"
                    + " (not named cyclium_*) may stay.");
        }
        if (foreignTables().isEmpty()) {
            return flyway; // an empty schema: Flyway's own first migration, no baseline marker
        }
        return flyway.baselineOnMigrate(true).baselineVersion(BASELINE_VERSION)
                .baselineDescription("before Cyclium (tables of other owners only)");
    }

    @Override
    public String toString() {
        return "schema " + name;
    }
}
