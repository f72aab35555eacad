package io.cyclium.servers;

import io.cyclium.cluster.HarnessDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * A fresh database for one server test: an H2 file in the test's folder, or a new database on the
 * local PostgreSQL / MariaDB (created and dropped by the cluster tests' {@link HarnessDatabase}).
 * {@link #environment()} is what the server-config scripts and the started server read.
 *
 * <p>H2 for a full server (Payara Server, WildFly) is served by an H2 TCP server in this test's
 * JVM on loopback, as docs/deploying/README.md tells an operator to run it: an embedded H2 registers a JVM
 * shutdown hook that closes the database while the server's own shutdown runs the drain, so the
 * drain's stamps would fail ("database is already closed"); DB_CLOSE_ON_EXIT=FALSE would prevent
 * that but H2 refuses it together with AUTO_SERVER. The same holds on Payara Micro
 * ({@code postboot-h2-server.asadmin}); only its quick start keeps an embedded file. The TCP
 * server listens on 127.0.0.1 only ({@code h2.bindAddress}, set for the test JVM by the build).
 */
final class ServerDatabase implements AutoCloseable {

    enum Kind { H2, POSTGRESQL, MARIADB }

    private final Kind kind;
    private final HarnessDatabase shared;
    private final Path h2File;
    private final String h2Password;
    private final org.h2.tools.Server h2Server;

    private ServerDatabase(Kind kind, HarnessDatabase shared, Path h2File, String h2Password, org.h2.tools.Server h2Server) {
        this.kind = kind;
        this.shared = shared;
        this.h2File = h2File;
        this.h2Password = h2Password;
        this.h2Server = h2Server;
    }

    /** A fresh database of this kind; H2 behind a TCP server (see the class comment). */
    static ServerDatabase create(Kind kind, Path dir) {
        return switch (kind) {
            case H2 -> new ServerDatabase(kind, null, dir.toAbsolutePath().resolve("h2/cyclium"),
                    "h2-" + UUID.randomUUID().toString().substring(0, 8), h2TcpServer());
            case POSTGRESQL -> new ServerDatabase(kind, HarnessDatabase.create(HarnessDatabase.Vendor.POSTGRESQL), null, null, null);
            case MARIADB -> new ServerDatabase(kind, HarnessDatabase.create(HarnessDatabase.Vendor.MARIADB), null, null, null);
        };
    }

    /**
     * H2's TCP server on a free loopback port; -ifNotExists: the server's first connection creates
     * the file. It binds to {@code h2.bindAddress} (127.0.0.1 for the tests), else to every interface.
     */
    private static org.h2.tools.Server h2TcpServer() {
        try {
            int port;
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            return org.h2.tools.Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        } catch (java.io.IOException | SQLException e) {
            throw new IllegalStateException("could not start an H2 TCP server", e);
        }
    }

    Kind kind() {
        return kind;
    }

    /** {@code CYCLIUM_DB} and the variables its pool or datasource reads. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CYCLIUM_DB", kind.name().toLowerCase(Locale.ROOT));
        if (kind == Kind.H2) {
            env.put("CYCLIUM_H2_FILE", h2File.toString());
            env.put("CYCLIUM_H2_SERVER", "127.0.0.1:" + h2Server.getPort());
            env.put("CYCLIUM_H2_PASSWORD", h2Password);
        } else {
            env.putAll(shared.nodeEnvironment());
        }
        return env;
    }

    /** The JDBC driver jar (copied into target/servers/lib by the build). */
    Path driverJar(Path lib) {
        return lib.resolve(switch (kind) {
            case H2 -> "h2.jar";
            case POSTGRESQL -> "postgresql.jar";
            case MARIADB -> "mariadb-java-client.jar";
        });
    }

    /** Runs a query; every row as lower-case column label → value. */
    List<Map<String, Object>> query(String sql, Object... params) {
        if (kind != Kind.H2) {
            return shared.query(sql, params);
        }
        String url = "jdbc:h2:tcp://127.0.0.1:" + h2Server.getPort() + "/" + h2File;
        try (Connection c = DriverManager.getConnection(url, "sa", h2Password);
             PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                List<Map<String, Object>> rows = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int col = 1; col <= rs.getMetaData().getColumnCount(); col++) {
                        row.put(rs.getMetaData().getColumnLabel(col).toLowerCase(Locale.ROOT), rs.getObject(col));
                    }
                    rows.add(row);
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("H2 " + h2File + ": " + sql + " failed", e);
        }
    }

    long count(String sql, Object... params) {
        return ((Number) query(sql, params).get(0).values().iterator().next()).longValue();
    }

    @Override
    public void close() {
        if (shared != null) {
            shared.close();
        }
        if (h2Server != null) {
            h2Server.stop();
        }
    }

    @Override
    public String toString() {
        return kind == Kind.H2 ? "H2 TCP server " + h2Server.getURL() + " file " + h2File : shared.toString();
    }
}
