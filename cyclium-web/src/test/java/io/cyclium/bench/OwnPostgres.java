package io.cyclium.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the benchmark's own ({@code initdb} + {@code pg_ctl}, the machine's
 * binaries) on a free loopback port, with {@code pg_stat_statements} preloaded and fsync on, so that
 * what it counts is only the benchmark's work. Its data directory is under {@code target/}; it logs
 * only fatal messages (a capped log by construction). {@link #close()} stops it and deletes it.
 */
final class OwnPostgres implements AutoCloseable {

    private final Path data;
    private final Path bin;
    private final int port;

    private OwnPostgres(Path data, Path bin, int port) {
        this.data = data;
        this.bin = bin;
        this.port = port;
    }

    static OwnPostgres start(Path data) {
        Path bin = binaries();
        int port = freePort();
        try {
            if (Files.exists(data)) {
                deleteTree(data);
            }
            Files.createDirectories(data);
            boolean root = "root".equals(System.getProperty("user.name"));
            if (root) {
                // initdb refuses to run as root: the server runs as the machine's postgres user
                run(List.of("chown", "postgres:postgres", data.toString()));
            }
            run(asPostgres(root, List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres",
                    "-A", "trust", "--no-sync", "-E", "UTF8")));
            String conf = String.join("\n",
                    "listen_addresses = '127.0.0.1'",
                    "port = " + port,
                    "unix_socket_directories = '" + data + "'",
                    "fsync = on",
                    "synchronous_commit = on",
                    "max_connections = 200",
                    "shared_buffers = 256MB",
                    "shared_preload_libraries = 'pg_stat_statements'",
                    "pg_stat_statements.track = top",
                    "pg_stat_statements.track_utility = on",
                    "pg_stat_statements.max = 10000",
                    "log_min_messages = fatal",
                    "log_min_error_statement = panic",
                    "");
            Files.writeString(data.resolve("postgresql.auto.conf"), conf);
            if (root) {
                run(List.of("chown", "postgres:postgres", data.resolve("postgresql.auto.conf").toString()));
            }
            run(asPostgres(root, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
                    data.resolve("server.log").toString(), "-w", "-t", "60", "start")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        OwnPostgres pg = new OwnPostgres(data, bin, port);
        // an aborted benchmark (Ctrl-C, SIGTERM) leaves no server behind
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "bench-postgres-stop"));
        pg.admin("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        pg.admin("CREATE ROLE bench_probe SUPERUSER LOGIN");
        return pg;
    }

    int port() {
        return port;
    }

    /** The postmaster's pid (its children are the backends). */
    long postmasterPid() {
        try {
            return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, "postgres", "");
    }

    /** A connection as the benchmark's probe role, whose statements are not the nodes'. */
    Connection probe(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, "bench_probe", "");
    }

    void admin(String sql) {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on the benchmark's PostgreSQL", e);
        }
    }

    @Override
    public synchronized void close() {
        if (!Files.exists(data)) {
            return;
        }
        try {
            boolean root = "root".equals(System.getProperty("user.name"));
            run(asPostgres(root, List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "stop")));
            deleteTree(data);
        } catch (IOException | RuntimeException e) {
            System.err.println("[bench] could not stop or delete " + data + ": " + e);
        }
    }

    private static List<String> asPostgres(boolean root, List<String> command) {
        if (!root) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static Path binaries() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow(() -> new IllegalStateException("no initdb under /usr/lib/postgresql/*/bin"));
        } catch (IOException e) {
            throw new IllegalStateException("PostgreSQL's binaries are not installed under /usr/lib/postgresql", e);
        }
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        try {
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
