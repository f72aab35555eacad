package io.cyclium.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The shape of the Cyclium tables as the JDBC metadata reports it, written as sorted one-line
 * facts in terms every vendor shares, so that two vendors' schemas can be compared line by line:
 * column names, type families and nullability, primary keys, foreign keys and named indexes.
 */
final class SchemaShape {

    /** The "unique among live rows" indexes: built differently on each vendor, so only their names compare. */
    private static final Set<String> LIVE_ROW_INDEXES =
            Set.of("ux_cyclium_episodes_active_dedupe", "ux_cyclium_findings_key_status_env",
                    "ux_cyclium_wf_instances_in_flight");

    private SchemaShape() {
    }

    /** The names of the cyclium_* tables in the connection's own schema, lower case. */
    static Set<String> tables(Connection c) throws SQLException {
        return new TreeSet<>(tableNames(c).keySet());
    }

    static List<String> facts(Connection c) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String catalog = c.getCatalog();
        String schema = c.getSchema();
        List<String> facts = new ArrayList<>();
        for (Map.Entry<String, String> table : tableNames(c).entrySet()) {
            String t = table.getKey();
            String stored = table.getValue();
            try (ResultSet rs = md.getColumns(catalog, escape(md, schema), escape(md, stored), "%")) {
                while (rs.next()) {
                    String column = t + "." + lower(rs.getString("COLUMN_NAME"));
                    if ("YES".equals(rs.getString("IS_GENERATEDCOLUMN"))) {
                        // H2 and MariaDB: a computed helper for a unique index; its type is the vendor's business
                        facts.add(column + " generated");
                    } else {
                        facts.add(column + " " + family(rs) + ("NO".equals(rs.getString("IS_NULLABLE")) ? " not null" : ""));
                    }
                }
            }
            Map<Short, String> pk = new TreeMap<>();
            try (ResultSet rs = md.getPrimaryKeys(catalog, schema, stored)) {
                while (rs.next()) {
                    pk.put(rs.getShort("KEY_SEQ"), lower(rs.getString("COLUMN_NAME")));
                }
            }
            facts.add(t + " primary key " + pk.values());
            try (ResultSet rs = md.getImportedKeys(catalog, schema, stored)) {
                while (rs.next()) {
                    facts.add(t + " foreign key " + lower(rs.getString("FK_NAME"))
                            + " (" + lower(rs.getString("FKCOLUMN_NAME")) + ") references "
                            + lower(rs.getString("PKTABLE_NAME")) + " (" + lower(rs.getString("PKCOLUMN_NAME")) + ")"
                            + (rs.getShort("DELETE_RULE") == DatabaseMetaData.importedKeyCascade ? " on delete cascade" : ""));
                }
            }
            facts.addAll(indexes(md, catalog, schema, t, stored));
        }
        facts.sort(null);
        return facts;
    }

    /** The named (ix_, ux_) indexes of a table; primary-key and foreign-key indexes are vendor artefacts. */
    private static List<String> indexes(DatabaseMetaData md, String catalog, String schema, String table, String stored)
            throws SQLException {
        Map<String, Map<Short, String>> columns = new TreeMap<>();
        Map<String, Boolean> unique = new TreeMap<>();
        try (ResultSet rs = md.getIndexInfo(catalog, schema, stored, false, false)) {
            while (rs.next()) {
                String name = lower(rs.getString("INDEX_NAME"));
                if (name == null || rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) {
                    continue;
                }
                // H2 names the index behind a named constraint <constraint>_INDEX_<n>
                name = name.replaceFirst("_index_[0-9a-z]+$", "");
                if (!name.startsWith("ix_") && !name.startsWith("ux_")) {
                    continue;
                }
                unique.put(name, !rs.getBoolean("NON_UNIQUE"));
                columns.computeIfAbsent(name, n -> new TreeMap<>())
                        .put(rs.getShort("ORDINAL_POSITION"), lower(rs.getString("COLUMN_NAME")));
            }
        }
        List<String> facts = new ArrayList<>();
        for (String name : unique.keySet()) {
            facts.add(table + (unique.get(name) ? " unique index " : " index ") + name + " "
                    + (LIVE_ROW_INDEXES.contains(name) ? "(live rows)" : columns.get(name).values().toString()));
        }
        return facts;
    }

    /** A type family every vendor can agree on: varchar(n), text, timestamp(p), boolean, integer, bigint, double. */
    private static String family(ResultSet column) throws SQLException {
        int type = column.getInt("DATA_TYPE");
        long size = column.getLong("COLUMN_SIZE");
        switch (type) {
            case Types.CHAR, Types.VARCHAR, Types.NCHAR, Types.NVARCHAR,
                    Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB:
                // TEXT, LONGTEXT and CLOB all report a huge size (or a CLOB type)
                return type == Types.CLOB || type == Types.NCLOB || size > 65_535 ? "text" : "varchar(" + size + ")";
            case Types.TIMESTAMP:
                int digits = column.getInt("DECIMAL_DIGITS");
                if (column.wasNull()) {
                    // MariaDB's driver leaves DECIMAL_DIGITS empty; its COLUMN_SIZE is the text
                    // width: 19 for DATETIME, 26 for DATETIME(6) ("yyyy-mm-dd hh:mm:ss.ffffff")
                    digits = size > 19 ? (int) size - 20 : 0;
                }
                return "timestamp(" + digits + ")";
            case Types.BOOLEAN, Types.BIT:
                return "boolean";
            case Types.INTEGER:
                return "integer";
            case Types.BIGINT:
                return "bigint";
            case Types.DOUBLE, Types.FLOAT:
                return "double";
            default:
                return column.getString("TYPE_NAME").toLowerCase(Locale.ROOT) + "(" + size + ")";
        }
    }

    /** Lower-case cyclium_* table name to the name as the database stores it (H2 upper-cases). */
    private static Map<String, String> tableNames(Connection c) throws SQLException {
        Map<String, String> names = new TreeMap<>(ExistingSchema.tableNames(c));
        // Flyway's history table has vendor-specific types of its own; it is not ours to shape.
        names.keySet().removeIf(t -> !t.startsWith("cyclium_") || t.equals(ExistingSchema.HISTORY_TABLE));
        return names;
    }

    /** Schema and table names contain '_', a LIKE wildcard in metadata patterns. */
    private static String escape(DatabaseMetaData md, String name) throws SQLException {
        return name == null ? null : name.replace("_", md.getSearchStringEscape() + "_");
    }

    private static String lower(String s) {
        return s == null ? null : s.toLowerCase(Locale.ROOT);
    }
}
