package io.cyclium.bench;

import io.cyclium.cluster.HarnessDatabase;
import io.cyclium.cluster.PrivateDatabaseServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The benchmark's PostgreSQL: a {@link PrivateDatabaseServer} (its own data directory under
 * {@code target/}, a free loopback port, a capped log) with fsync on and {@code pg_stat_statements}
 * preloaded, so that what it counts is only the benchmark's work; plus a probe role whose
 * statements the benchmark leaves out of its counts.
 */
final class OwnPostgres implements AutoCloseable {

    private static final List<String> SETTINGS = List.of("fsync=on", "synchronous_commit=on", "shared_buffers=256MB",
            "shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top",
            "pg_stat_statements.track_utility=on", "pg_stat_statements.max=10000");

    private final PrivateDatabaseServer server;

    private OwnPostgres(PrivateDatabaseServer server) {
        this.server = server;
    }

    static OwnPostgres start(Path root) {
        List<String> settings = new java.util.ArrayList<>(SETTINGS);
        if (Integer.getInteger("bench.top-statements", 0) > 0) {
            // plans per statement for the top-statements lines; off otherwise (it costs a lock per plan)
            settings.add("pg_stat_statements.track_planning=on");
        }
        // more server settings for a diagnosis, e.g. -Dbench.pg-settings=log_lock_waits=on,deadlock_timeout=20ms;
        // a | stands for a comma inside one value (shared_preload_libraries=pg_stat_statements|auto_explain)
        for (String extra : System.getProperty("bench.pg-settings", "").split(",")) {
            if (!extra.isBlank()) {
                settings.add(extra.trim().replace('|', ','));
            }
        }
        OwnPostgres pg = new OwnPostgres(PrivateDatabaseServer.start(HarnessDatabase.Vendor.POSTGRESQL, root, settings));
        // an aborted benchmark (Ctrl-C, SIGTERM) leaves no server behind
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "bench-postgres-stop"));
        pg.admin("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        pg.admin("CREATE ROLE bench_probe SUPERUSER LOGIN");
        return pg;
    }

    int port() {
        return server.port();
    }

    /** The postmaster's pid (its children are the backends). */
    long postmasterPid() {
        return server.serverPid();
    }

    /** A connection as the benchmark's probe role, whose statements are not the nodes'. */
    Connection probe(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/" + database, "bench_probe", "");
    }

    /** A database of the benchmark's own beside the nodes' (the nodes' role owns it). */
    void createDatabase(String name) {
        admin("CREATE DATABASE " + name);
    }

    private void admin(String sql) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on the benchmark's PostgreSQL", e);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
