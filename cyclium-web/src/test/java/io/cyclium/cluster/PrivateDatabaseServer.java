package io.cyclium.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL or MariaDB server of a test's own — its own data directory under
 * {@code target/chaos/}, its own loopback port, a size-capped log — that the test may stop, kill
 * and start again. The machine's shared servers (5432, 3306) are never touched.
 *
 * <p>PostgreSQL runs from {@code /usr/lib/postgresql/<version>/bin} as the {@code postgres} user
 * (initdb refuses root), trust authentication; MariaDB from {@code mariadb-install-db} and
 * {@code mariadbd --user=root}, root without a password. {@link #close()} kills it and deletes the
 * directory.
 */
public final class PrivateDatabaseServer implements AutoCloseable {

    private static final long LOG_CAP = 16L * 1024 * 1024;

    private final HarnessDatabase.Vendor vendor;
    private final Path dir;
    private final Path data;
    private final int port;
    private final List<String> settings;
    private Process process;

    private PrivateDatabaseServer(HarnessDatabase.Vendor vendor, Path dir, int port, List<String> settings) {
        this.vendor = vendor;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.settings = List.copyOf(settings);
    }

    /** Initialises a data directory under {@code root} and starts the server on a free port. */
    public static PrivateDatabaseServer start(HarnessDatabase.Vendor vendor, Path root) {
        return start(vendor, root, List.of());
    }

    /**
     * The same with server settings of the caller's, which win over the defaults: PostgreSQL
     * {@code name=value} pairs passed as {@code -c}, MariaDB options ({@code --name=value}).
     */
    public static PrivateDatabaseServer start(HarnessDatabase.Vendor vendor, Path root, List<String> settings) {
        Path dir = root.resolve(vendor.name().toLowerCase(java.util.Locale.ROOT) + "-" + System.nanoTime());
        PrivateDatabaseServer s = new PrivateDatabaseServer(vendor, dir, freePort(), settings);
        try {
            Files.createDirectories(s.data);
            s.initialise();
            s.launch();
            return s;
        } catch (IOException e) {
            s.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    public HarnessDatabase.Vendor vendor() {
        return vendor;
    }

    private static String pgBin(String tool) {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin").resolve(tool)).filter(Files::isExecutable)
                    .max(Comparator.naturalOrder()).orElseThrow(() -> new IllegalStateException(
                            "no " + tool + " under /usr/lib/postgresql/*/bin: apt-get install -y postgresql (.ci/run does it)"))
                    .toString();
        } catch (IOException e) {
            throw new IllegalStateException("PostgreSQL binaries missing: apt-get install -y postgresql", e);
        }
    }

    private void initialise() {
        if (vendor == HarnessDatabase.Vendor.POSTGRESQL) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()));
            run(List.of("runuser", "-u", "postgres", "--", pgBin("initdb"), "-D", data.toString(), "-U", "postgres",
                    "--auth=trust", "-E", "UTF8", "--no-sync"));
        } else {
            run(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data, "--user=root",
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
        }
    }

    /** Starts the server process and waits until it takes connections. */
    public synchronized Duration launch() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(this + " runs already");
        }
        List<String> command = new ArrayList<>();
        if (vendor == HarnessDatabase.Vendor.POSTGRESQL) {
            command.addAll(List.of("runuser", "-u", "postgres", "--", pgBin("postgres"), "-D", data.toString(),
                    "-p", String.valueOf(port), "-k", data.toString(), "-c", "listen_addresses=127.0.0.1",
                    "-c", "fsync=off", "-c", "max_connections=200"));
            settings.forEach(setting -> command.addAll(List.of("-c", setting)));
        } else {
            command.addAll(List.of("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data, "--port=" + port,
                    "--socket=" + data.resolve("mariadb.sock"), "--bind-address=127.0.0.1", "--user=root",
                    "--innodb-buffer-pool-size=128M", "--max-connections=300", "--skip-log-bin",
                    "--transaction-isolation=READ-COMMITTED"));
            command.addAll(settings);
        }
        Instant begin = Instant.now();
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            process = p;
            ClusterNode.copyCapped(p.getInputStream(), dir.resolve("server.log"), LOG_CAP, "db-" + port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
        Instant deadline = begin.plusSeconds(90);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(this + " exited during start-up; see " + dir.resolve("server.log"));
            }
            try (var c = DriverManager.getConnection(vendor.adminUrl(port), vendor == HarnessDatabase.Vendor.POSTGRESQL
                    ? "postgres" : "root", "")) {
                return Duration.between(begin, Instant.now());
            } catch (java.sql.SQLException notYet) {
                sleep(200);
            }
        }
        throw new IllegalStateException(this + " did not take connections within 90 s; see " + dir.resolve("server.log"));
    }

    /**
     * A clean stop (PostgreSQL: fast shutdown, SIGINT to the postmaster; MariaDB: SIGTERM): open
     * connections are cut, committed work stays. Returns once the process has ended.
     */
    public synchronized void stop() {
        signal(vendor == HarnessDatabase.Vendor.POSTGRESQL ? "-INT" : "-TERM");
        awaitExit();
    }

    /** SIGKILL to the server: no shutdown at all; the next {@link #launch()} recovers from its log. */
    public synchronized void kill9() {
        signal("-KILL");
        awaitExit();
        if (vendor == HarnessDatabase.Vendor.POSTGRESQL) {
            // backends notice the postmaster's death on their own; give them a moment to leave
            sleep(1000);
        }
    }

    private void signal(String signal) {
        run(List.of("kill", signal, String.valueOf(serverPid())));
    }

    /** The server's own pid (for PostgreSQL the postmaster, not the runuser wrapper). */
    public long serverPid() {
        if (vendor == HarnessDatabase.Vendor.POSTGRESQL) {
            try {
                return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return process.pid();
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException(this + " did not stop within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (process != null && process.isAlive()) {
                try {
                    signal("-KILL");
                } catch (RuntimeException e) {
                    process.destroyForcibly();
                }
                awaitExit();
                sleep(500);
            }
        } finally {
            deleteRecursively(data);
        }
    }

    @Override
    public String toString() {
        return "private " + vendor + " server on 127.0.0.1:" + port;
    }

    private static void deleteRecursively(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> all = Files.walk(p)) {
            all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + p + ": " + e);
        }
    }

    private static void run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A port free on loopback now (also for the other processes tests start: PrometheusServer). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
