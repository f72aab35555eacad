package io.cyclium.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * A fresh database ({@code cyclium_h_<random>}) on the local PostgreSQL or MariaDB for one
 * cluster run: the nodes reach it through the shipped post-boot file and the {@code CYCLIUM_DB_*}
 * variables from {@link #nodeEnvironment()}, the test reads it with {@link #query}. Flyway inside
 * the nodes creates the schema. {@link #close()} drops it, even while connections are still open.
 */
public final class HarnessDatabase implements AutoCloseable {

    /** The databases a cluster can run on, with their post-boot file, driver and admin access. */
    public enum Vendor {
        POSTGRESQL("postboot-postgresql.asadmin", "postgresql.jar", 5432, "postgres"),
        MARIADB("postboot-mariadb.asadmin", "mariadb-java-client.jar", 3306, "root");

        private final String postBootFile;
        private final String driverJar;
        private final int port;
        private final String user;

        Vendor(String postBootFile, String driverJar, int port, String user) {
            this.postBootFile = postBootFile;
            this.driverJar = driverJar;
            this.port = port;
            this.user = user;
        }

        /** The port of the machine's shared server of this vendor. */
        public int sharedPort() {
            return port;
        }

        String adminUrl(int port) {
            return this == POSTGRESQL ? "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=5"
                    : "jdbc:mariadb://127.0.0.1:" + port + "/?connectTimeout=5000";
        }

        /** File name under {@code server-config/payara-micro/}. */
        public String postBootFile() {
            return postBootFile;
        }

        /** File name under {@code target/payara/} (copied there by the build). */
        public String driverJar() {
            return driverJar;
        }

        String createSql(String name) {
            // MariaDB: the collation is only the database default, every table names its own
            return this == POSTGRESQL ? "CREATE DATABASE " + name
                    : "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin";
        }

        String dropSql(String name) {
            // FORCE: a node killed a moment ago may still hold connections the server has not reaped
            return this == POSTGRESQL ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
                    : "DROP DATABASE IF EXISTS " + name;
        }

        String url(int port, String name) {
            return this == POSTGRESQL ? "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?connectTimeout=5"
                    : "jdbc:mariadb://127.0.0.1:" + port + "/" + name + "?connectTimeout=5000&transactionIsolation=READ_COMMITTED";
        }

        String howToStart() {
            return this == POSTGRESQL
                    ? "PostgreSQL must run on 127.0.0.1:5432 (user postgres, trust): "
                            + "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
                    : "MariaDB must run on 127.0.0.1:3306 (user root, empty password): "
                            + "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd";
        }
    }

    private final Vendor vendor;
    private final int port;
    private final String name;
    private volatile boolean dropped;

    private HarnessDatabase(Vendor vendor, int port, String name) {
        this.vendor = vendor;
        this.port = port;
        this.name = name;
    }

    /** Creates an empty database with a random name on the machine's shared server; the nodes' Flyway fills it at boot. */
    public static HarnessDatabase create(Vendor vendor) {
        return create(vendor, vendor.port);
    }

    /** The same on a server of this vendor on another loopback port (one a test started itself). */
    public static HarnessDatabase create(Vendor vendor, int port) {
        String name = System.getProperty("cyclium.harness.db-prefix", "cyclium_h_") + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        admin(vendor, port, vendor.createSql(name));
        return new HarnessDatabase(vendor, port, name);
    }

    public Vendor vendor() {
        return vendor;
    }

    public String name() {
        return name;
    }

    /** What the vendor's post-boot file reads through {@code ${ENV=CYCLIUM_DB_...}}. */
    public Map<String, String> nodeEnvironment() {
        return Map.of(
                "CYCLIUM_DB_HOST", "127.0.0.1",
                "CYCLIUM_DB_PORT", String.valueOf(port),
                "CYCLIUM_DB_NAME", name,
                "CYCLIUM_DB_USER", vendor.user,
                "CYCLIUM_DB_PASSWORD", "");
    }

    /**
     * Applies the product's migrations now, from the test JVM — the same files and history table
     * the nodes' Flyway uses, so a node booting later finds the schema current and migrates
     * nothing. For tests that load rows before any node is up.
     */
    public void migrate() {
        io.cyclium.schema.SchemaMigrator.configure(vendor == Vendor.POSTGRESQL
                ? io.cyclium.store.DatabaseVendor.POSTGRESQL : io.cyclium.store.DatabaseVendor.MARIADB)
                .dataSource(vendor.url(port, name), vendor.user, "").load().migrate();
    }

    /** A new auto-commit connection to this database; the caller closes it. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(vendor.url(port, name), vendor.user, "");
    }

    /**
     * Runs a query with positional parameters and returns every row as column label (lower case)
     * → value, in order.
     */
    public List<Map<String, Object>> query(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                List<Map<String, Object>> rows = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int col = 1; col <= md.getColumnCount(); col++) {
                        row.put(md.getColumnLabel(col).toLowerCase(Locale.ROOT), rs.getObject(col));
                    }
                    rows.add(row);
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(vendor + " " + name + ": " + sql + " failed", e);
        }
    }

    /** Drops the database. Idempotent; safe from a shutdown hook. */
    @Override
    public void close() {
        if (dropped) {
            return;
        }
        dropped = true;
        admin(vendor, port, vendor.dropSql(name));
    }

    @Override
    public String toString() {
        return vendor + " database " + name + (port == vendor.port ? "" : " on port " + port);
    }

    private static void admin(Vendor vendor, int port, String sql) {
        Connection c;
        try {
            c = DriverManager.getConnection(vendor.adminUrl(port), vendor.user, "");
        } catch (SQLException e) {
            throw new IllegalStateException(vendor.howToStart() + " (" + e.getMessage() + ")", e);
        }
        try (c; Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(vendor + ": " + sql + " failed", e);
        }
    }
}
