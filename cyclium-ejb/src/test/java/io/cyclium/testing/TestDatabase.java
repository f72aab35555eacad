package io.cyclium.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.schema.SchemaMigrator;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * One isolated, freshly migrated database for tests.
 *
 * <p>{@link #create(Vendor)} makes a new database that nobody else uses (an in-memory H2
 * database, a PostgreSQL schema or a MariaDB database with a random {@code cyclium_t_...} name),
 * applies the vendor's migrations from {@code classpath:db/cyclium/<vendor>} with Flyway and hands
 * out its coordinates. {@link #close()} drops it again. Use one per test class (see
 * {@link TestDatabases}) and give each test its own keys, so tests never depend on each other.
 *
 * <p>PostgreSQL and MariaDB must be running on 127.0.0.1 (CI starts them). If one is not
 * reachable, {@link #create(Vendor)} fails with a message that says how to start it: a database
 * test is never skipped silently.
 */
public final class TestDatabase implements AutoCloseable {

    /** The databases the test suites run against, with what is specific to each. */
    public enum Vendor {
        H2("h2"),
        POSTGRESQL("postgresql"),
        MARIADB("mariadb");

        private final String folder;

        Vendor(String folder) {
            this.folder = folder;
        }

        /** The migration folder under {@code sql/} and {@code classpath:db/cyclium/}. */
        public String folder() {
            return folder;
        }

        /** The Flyway location of this vendor's migrations. */
        public String migrationLocation() {
            return "classpath:db/cyclium/" + folder;
        }

        /**
         * Whether {@code e} is a unique-key or primary-key violation (and not, say, a foreign-key
         * or NOT NULL one). H2 and PostgreSQL report SQLState 23505; MariaDB reports the generic
         * integrity class 23000 for every constraint, so its error code 1062 decides.
         */
        public boolean isUniqueViolation(SQLException e) {
            return this == MARIADB
                    ? "23000".equals(e.getSQLState()) && e.getErrorCode() == 1062
                    : "23505".equals(e.getSQLState());
        }
    }

    /** Start of every test database's name; {@code -Dcyclium.test.db-prefix=...} tells parallel runs apart. */
    private static final String PREFIX = System.getProperty("cyclium.test.db-prefix", "cyclium_t_");
    private static final String PG_HOST = "127.0.0.1:5432";
    private static final String PG_ADMIN_URL = "jdbc:postgresql://" + PG_HOST + "/test?connectTimeout=5";
    private static final String PG_USER = "postgres";
    private static final String MARIADB_HOST = "127.0.0.1:3306";
    private static final String MARIADB_ADMIN_URL = "jdbc:mariadb://" + MARIADB_HOST + "/?connectTimeout=5000";
    private static final String MARIADB_USER = "root";

    private final Vendor vendor;
    private final String name;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private boolean closed;
    private boolean attached;

    private TestDatabase(Vendor vendor, String name, String jdbcUrl, String user, String password) {
        this.vendor = vendor;
        this.name = name;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** Creates a fresh database for {@code vendor} and migrates it to the latest version, as a node does at boot. */
    public static TestDatabase create(Vendor vendor) {
        TestDatabase db = empty(vendor);
        try {
            SchemaMigrator.migrate(db.flywayConfiguration());
        } catch (RuntimeException e) {
            db.close();
            throw new IllegalStateException("the " + vendor + " migrations failed on " + db.jdbcUrl, e);
        }
        return db;
    }

    /** Creates a fresh, empty database for {@code vendor}: nothing migrated yet. */
    public static TestDatabase empty(Vendor vendor) {
        String name = PREFIX + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        TestDatabase db;
        switch (vendor) {
            case H2:
                db = new TestDatabase(vendor, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "");
                break;
            case POSTGRESQL:
                admin(vendor, "CREATE SCHEMA " + name);
                db = new TestDatabase(vendor, name,
                        "jdbc:postgresql://" + PG_HOST + "/test?connectTimeout=5&currentSchema=" + name,
                        PG_USER, "");
                break;
            case MARIADB:
                // the collation only sets the database default: every table names its own
                admin(vendor, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
                // transactionIsolation is the driver's own option. The server variable would be
                // sessionVariables=tx_isolation=...: 'transaction_isolation' only exists from
                // MariaDB 11.1 on, and 10.11 refuses the connection with error 1193.
                db = new TestDatabase(vendor, name,
                        "jdbc:mariadb://" + MARIADB_HOST + "/" + name
                                + "?connectTimeout=5000&transactionIsolation=READ_COMMITTED",
                        MARIADB_USER, "");
                break;
            default:
                throw new IllegalArgumentException(String.valueOf(vendor));
        }
        return db;
    }

    /**
     * The database another process created (a child JVM of a test gets its name): same coordinates,
     * but {@link #close()} leaves it alone — its creator drops it.
     */
    public static TestDatabase attach(Vendor vendor, String name) {
        TestDatabase db = switch (vendor) {
            case H2 -> throw new IllegalArgumentException("an in-memory H2 database cannot be shared with another process");
            case POSTGRESQL -> new TestDatabase(vendor, name,
                    "jdbc:postgresql://" + PG_HOST + "/test?connectTimeout=5&currentSchema=" + name, PG_USER, "");
            case MARIADB -> new TestDatabase(vendor, name, "jdbc:mariadb://" + MARIADB_HOST + "/" + name
                    + "?connectTimeout=5000&transactionIsolation=READ_COMMITTED", MARIADB_USER, "");
        };
        db.closed = false;
        db.attached = true;
        return db;
    }

    public Vendor vendor() {
        return vendor;
    }

    /** The random schema (PostgreSQL), database (MariaDB) or in-memory database (H2) name. */
    public String name() {
        return name;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** A new auto-commit connection to this database; the caller closes it. */
    public Connection connect() throws SQLException {
        if (closed) {
            throw new IllegalStateException("test database " + name + " is closed");
        }
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** Flyway configured for this database and this vendor's migrations (to inspect or re-run). */
    public Flyway flyway() {
        return flywayConfiguration().load();
    }

    /** The product's Flyway settings for this vendor, on this database. */
    public FluentConfiguration flywayConfiguration() {
        return SchemaMigrator.configure(DatabaseVendor.valueOf(vendor.name())).dataSource(jdbcUrl, user, password);
    }

    /** Drops the database. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (attached) {
            return;
        }
        switch (vendor) {
            case H2:
                try (Connection c = DriverManager.getConnection(jdbcUrl, user, password);
                     Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException e) {
                    throw new IllegalStateException("could not drop H2 database " + name, e);
                }
                break;
            case POSTGRESQL:
                admin(vendor, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
                break;
            case MARIADB:
                admin(vendor, "DROP DATABASE IF EXISTS " + name);
                break;
            default:
                throw new IllegalArgumentException(String.valueOf(vendor));
        }
    }

    @Override
    public String toString() {
        return vendor + " " + name;
    }

    private static void admin(Vendor vendor, String sql) {
        String url = vendor == Vendor.POSTGRESQL ? PG_ADMIN_URL : MARIADB_ADMIN_URL;
        String user = vendor == Vendor.POSTGRESQL ? PG_USER : MARIADB_USER;
        Connection c;
        try {
            c = DriverManager.getConnection(url, user, "");
        } catch (SQLException e) {
            throw new IllegalStateException(unreachable(vendor) + " (" + e.getMessage() + ")", e);
        }
        try (c; Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(vendor + ": " + sql + " failed", e);
        }
    }

    private static String unreachable(Vendor vendor) {
        if (vendor == Vendor.POSTGRESQL) {
            return "PostgreSQL is not reachable at " + PG_HOST + " as user " + PG_USER
                    + " (trust auth, database test). These tests need it running; start it with: "
                    + "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start";
        }
        return "MariaDB is not reachable at " + MARIADB_HOST + " as user " + MARIADB_USER
                + " with an empty password. These tests need it running; start it with: "
                + "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd";
    }
}
