package io.cyclium.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Real Cyclium nodes as separate Payara Micro processes on one fresh database: the product WAR
 * and the shipped post-boot file, unchanged, one process per node.
 *
 * <pre>{@code
 * try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
 *         .env("CYCLIUM_DEMO_ENABLED", "true")                      // every node
 *         .node("node-a")
 *         .node("node-b", Map.of("CYCLIUM_EPISODE_SHUTDOWN_MS", "10000"))
 *         .start()) {
 *     HttpReply r = cluster.node("node-a").post("/events", "{\"type\":\"resource.updated\",\"id\":\"e1\"}");
 *     cluster.database().query("SELECT run_node FROM cyclium_episodes WHERE dedupe_key = ?", key);
 *     Instant sent = cluster.sigterm("node-a");
 *     Instant exited = cluster.waitForExit("node-a", Duration.ofSeconds(30));
 *     cluster.restart("node-a");
 * }
 * }</pre>
 *
 * <p>Each node gets its own free port, {@code CYCLIUM_NODE_IDENTITY=<name>}, the database's
 * {@code CYCLIUM_DB_*} variables and short timings (lease 6 s, recovery after 2 s every 1 s,
 * stale after 8 s, drain 3 s) unless {@link Builder#env} or the node's own map says otherwise.
 * No {@code CYCLIUM_*} variable of the test JVM reaches a node. Logs go to
 * {@code target/cluster/<run>/<node>.log}. {@link #close()} kills every process it started (also
 * from a JVM shutdown hook, so an aborted run leaves no Payara behind), removes the runtime
 * directories they left in the temp folder and drops the database.
 */
public final class ClusterHarness implements AutoCloseable {

    /** Short timings so failover scenarios take seconds; a node's own map may override each. */
    public static final Map<String, String> DEFAULT_TIMINGS = Map.of(
            "CYCLIUM_WORK_CLAIMS_LEASE_SECONDS", "6",
            "CYCLIUM_RECOVERY_INITIAL_DELAY_MS", "2000",
            "CYCLIUM_RECOVERY_INTERVAL_MS", "1000",
            "CYCLIUM_RECOVERY_STALE_AFTER_MS", "8000",
            "CYCLIUM_EPISODE_SHUTDOWN_MS", "3000",
            // one console password per test JVM, never a constant in the repository
            "CYCLIUM_ADMIN_PASSWORD", "harness-" + java.util.UUID.randomUUID());
    // 2 cores, several Payara Micro processes deploying at once; -Dcyclium.cluster.boot-timeout-s
    // stretches it on a machine other builds are loading too
    static final Duration BOOT_TIMEOUT = Duration.ofSeconds(Long.getLong("cyclium.cluster.boot-timeout-s", 240));

    /** The JIT option of test nodes: C1 only (see {@link Builder#fullJit()}). */
    public static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    /** The only address a test node listens on. */
    static final String LOOPBACK = "127.0.0.1";

    private final String run;
    private final HarnessDatabase database;
    private final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
    private final Thread shutdownHook;
    private boolean closed;

    private ClusterHarness(String run, HarnessDatabase database) {
        this.run = run;
        this.database = database;
        this.shutdownHook = new Thread(this::closeQuietly, "cluster-harness-" + run);
    }

    /** Starts describing a cluster on a fresh database of this vendor. */
    /**
     * The product's Micro WAR plus the classes of the packages of {@code packagesOf} (test actors, a test adapter), written to
     * {@code target/cluster/<name>}; deploy it with {@link Builder#war(Path)}.
     */
    public static Path productWarWith(String name, Class<?>... packagesOf) {
        return productWarWith(Path.of(System.getProperty("cyclium.micro.war", "target/cyclium-web-micro.war")), name, packagesOf);
    }

    /** {@link #productWarWith(String, Class...)} from another build's Micro WAR {@code productWar} (a benchmark's "before"). */
    public static Path productWarWith(Path productWar, String name, Class<?>... packagesOf) {
        java.io.File product = productWar.toFile();
        java.io.File out = new java.io.File("target/cluster/" + name);
        out.getParentFile().mkdirs();
        org.jboss.shrinkwrap.api.ShrinkWrap.create(org.jboss.shrinkwrap.api.importer.ZipImporter.class, "cyclium.war")
                .importFrom(product).as(org.jboss.shrinkwrap.api.spec.WebArchive.class)
                .addPackages(false, java.util.Arrays.stream(packagesOf).map(Class::getPackage).toArray(Package[]::new))
                .as(org.jboss.shrinkwrap.api.exporter.ZipExporter.class).exportTo(out, true);
        return out.toPath();
    }

    public static Builder on(HarnessDatabase.Vendor vendor) {
        return new Builder(vendor);
    }

    /** A cluster on a server of this vendor on another loopback port, one the test started itself. */
    public static Builder on(HarnessDatabase.Vendor vendor, int port) {
        Builder b = new Builder(vendor);
        b.port = port;
        return b;
    }

    public HarnessDatabase database() {
        return database;
    }

    /** The node with this name; its REST client is {@link ClusterNode#post} / {@link ClusterNode#get}. */
    public ClusterNode node(String name) {
        ClusterNode node = nodes.get(name);
        if (node == null) {
            throw new IllegalArgumentException("no node " + name + " in this cluster: " + nodes.keySet());
        }
        return node;
    }

    public List<ClusterNode> nodes() {
        return List.copyOf(nodes.values());
    }

    /** Sends SIGTERM (graceful: Payara shuts down, the node drains); returns when it was sent. */
    public Instant sigterm(String name) {
        ClusterNode node = node(name);
        Instant sent = node.sigterm();
        log(name + " sent SIGTERM (pid " + node.pid() + ")");
        return sent;
    }

    /** Sends SIGKILL (the node vanishes without any shutdown); returns when it was sent. */
    public Instant kill9(String name) {
        ClusterNode node = node(name);
        Instant sent = node.kill9();
        log(name + " sent SIGKILL (pid " + node.pid() + ")");
        return sent;
    }

    /** Waits until the node's process has ended and returns when it ended. */
    /** SIGSTOP: the node freezes mid-step, like a long GC pause or a suspended VM. */
    public Instant pause(String name) {
        return signal(name, "-STOP");
    }

    /** SIGCONT after {@link #pause}. */
    public Instant resume(String name) {
        return signal(name, "-CONT");
    }

    private Instant signal(String name, String signal) {
        long pid = node(name).pid();
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
            return Instant.now();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public Instant waitForExit(String name, Duration timeout) {
        ClusterNode node = node(name);
        Instant exited = node.waitForExit(timeout);
        log(name + " exited with " + node.exitCode());
        return exited;
    }

    /**
     * Stops the node if it still runs (SIGTERM, at most 30 s), starts it again on the same port
     * with the same environment and waits until it answers; returns the boot time.
     */
    public Duration restart(String name) {
        ClusterNode node = node(name);
        if (node.isAlive()) {
            sigterm(name);
            waitForExit(name, Duration.ofSeconds(30));
        }
        node.deleteRuntimeDirs();
        node.start();
        awaitReady(List.of(node));
        return node.lastBoot();
    }

    /** Kills what still runs, deletes left-over runtime directories and drops the database. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            killAll();
            for (ClusterNode node : nodes.values()) {
                node.deleteRuntimeDirs();
            }
            database.close();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: it does the same killing
            }
        }
        log("closed; logs in " + runDir());
    }

    /** For the shutdown hook of an aborted run: as much of {@link #close()} as still works. */
    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            System.err.println("[cluster " + run + "] cleanup at JVM exit incomplete: " + e);
        }
    }

    /** SIGKILL to every process this harness started that still runs, then waits for them to end. */
    private void killAll() {
        List<ClusterNode> alive = nodes.values().stream().filter(ClusterNode::isAlive).toList();
        alive.forEach(ClusterNode::kill9);
        for (ClusterNode node : alive) {
            try {
                node.waitForExit(Duration.ofSeconds(10));
            } catch (AssertionError e) {
                System.err.println("[cluster " + run + "] " + e.getMessage());
            }
        }
    }

    private void startAll() {
        Instant begin = Instant.now();
        nodes.values().forEach(ClusterNode::start);
        awaitReady(nodes.values());
        log(nodes.size() + " node(s) ready in " + seconds(Duration.between(begin, Instant.now())) + " s on " + database);
    }

    /** Polls every starting node in turn, so each node's boot time is measured on its own. */
    private void awaitReady(Iterable<ClusterNode> starting) {
        List<ClusterNode> waiting = new ArrayList<>();
        starting.forEach(waiting::add);
        Instant deadline = Instant.now().plus(BOOT_TIMEOUT);
        while (!waiting.isEmpty()) {
            for (ClusterNode node : List.copyOf(waiting)) {
                if (node.checkReady()) {
                    waiting.remove(node);
                    listensOnlyOnLoopback(node);
                    log(node.name() + " ready in " + seconds(node.lastBoot()) + " s (pid " + node.pid() + ", port "
                            + node.port() + ")");
                }
            }
            if (waiting.isEmpty()) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                ClusterNode late = waiting.get(0);
                throw new IllegalStateException(late.name() + " did not answer " + late.api() + "/nodes/self within "
                        + BOOT_TIMEOUT.toSeconds() + " s (last probe: " + late.lastProbe() + "). " + late.tail());
            }
            sleep(250);
        }
    }

    /** Tests use loopback only: a node listening on any other address fails its boot. */
    private static void listensOnlyOnLoopback(ClusterNode node) {
        List<String> listening = ListeningSockets.of(node.pid());
        List<String> elsewhere = listening.stream().filter(a -> !ListeningSockets.on(a, LOOPBACK)).toList();
        if (listening.isEmpty() || !elsewhere.isEmpty()) {
            throw new IllegalStateException(node.name() + " listens on " + listening + ": every socket must be on " + LOOPBACK
                    + " (" + elsewhere + " is not). " + node.tail());
        }
    }

    private Path runDir() {
        return Builder.clusterRoot().resolve(run);
    }

    private void log(String message) {
        System.out.println("[cluster " + run + "] " + message);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }

    /** Describes the nodes; {@link #start()} creates the database and boots them all in parallel. */
    public static final class Builder {

        private final HarnessDatabase.Vendor vendor;
        private final Map<String, String> common = new HashMap<>();
        private final Map<String, Map<String, String>> nodeEnv = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m"));
        /**
         * Test nodes compile with C1 only: a Payara Micro boot then costs 20-25 s of CPU instead
         * of 44-47 s (measured here, one node alone; C2 compiles code a node that lives a minute
         * never runs hot), and boots are most of what the cluster tests spend on two cores.
         * Benchmarks measure steady state and ask for the JVM's default tiers ({@link #fullJit()}).
         */
        private boolean c1Only = true;
        private Path customWar;
        private final Map<String, Path> nodeWars = new HashMap<>();
        private int port;
        private final List<Path> extraPostBoot = new ArrayList<>();
        private BeforeBoot beforeBoot = db -> { };

        /** What runs on the fresh database before any node boots (e.g. {@link HarnessDatabase#migrate()} and rows to load). */
        @FunctionalInterface
        public interface BeforeBoot {
            void prepare(HarnessDatabase database) throws Exception;
        }

        /** Prepares the fresh database before the nodes boot (they find what it left there). */
        public Builder beforeBoot(BeforeBoot prepare) {
            this.beforeBoot = java.util.Objects.requireNonNull(prepare, "prepare");
            return this;
        }

        /** Deploys this WAR instead of the product's Micro WAR (e.g. the product plus test actors). */
        public Builder war(Path war) {
            this.customWar = war;
            return this;
        }

        private Builder(HarnessDatabase.Vendor vendor) {
            this.vendor = vendor;
        }

        /**
         * A node named {@code name} that deploys its own WAR (another build of the application, as
         * during a rolling deploy), with its own extra environment.
         */
        public Builder node(String name, Map<String, String> env, Path war) {
            node(name, env);
            nodeWars.put(name, war);
            return this;
        }

        /** An environment variable for every node (a node's own map wins). */
        public Builder env(String name, String value) {
            common.put(name, value);
            return this;
        }

        /**
         * Commands of a shipped asadmin file (e.g. {@code server-config/payara-server/batch-repository.asadmin})
         * run after the vendor's post-boot file, on every node.
         */
        public Builder postBoot(Path asadminFile) {
            extraPostBoot.add(asadminFile);
            return this;
        }

        /** Nodes with the JVM's default tiered compilation (C1, then C2), as in production: for benchmarks. */
        public Builder fullJit() {
            this.c1Only = false;
            return this;
        }

        /** An extra JVM option for every node (the defaults are {@code -Xmx512m} and C1 only, see {@link #fullJit()}). */
        public Builder jvmOption(String option) {
            jvmOptions.add(option);
            return this;
        }

        public Builder node(String name) {
            return node(name, Map.of());
        }

        /** A node named {@code name} (also its identity) with its own extra environment. */
        public Builder node(String name, Map<String, String> env) {
            if (nodeEnv.putIfAbsent(name, Map.copyOf(env)) != null) {
                throw new IllegalArgumentException("node " + name + " is declared twice");
            }
            return this;
        }

        /**
         * Creates the database, starts every node and waits until each answers with its identity.
         * On any failure everything started so far is stopped and dropped again.
         */
        public ClusterHarness start() {
            if (nodeEnv.isEmpty()) {
                throw new IllegalStateException("declare at least one node");
            }
            Path war = customWar != null ? customWar : existing("cyclium.micro.war", "target/cyclium-web-micro.war");
            Path payara = existing("cyclium.payara.dir", "target/payara");
            Path postBoot = existing("cyclium.config.dir", "../server-config").resolve("payara-micro").resolve(vendor.postBootFile());
            Path preBoot = postBoot.resolveSibling("preboot.asadmin");
            Path micro = payara.resolve("payara-micro.jar");
            Path driver = payara.resolve(vendor.driverJar());
            for (Path p : List.of(preBoot, postBoot, micro, driver)) {
                if (!Files.isRegularFile(p)) {
                    throw new IllegalStateException("missing " + p.toAbsolutePath() + " (run mvn package first)");
                }
            }
            String run = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now()) + "-"
                    + vendor.name().toLowerCase(Locale.ROOT) + "-" + UUID.randomUUID().toString().substring(0, 4);
            Path dir = clusterRoot().resolve(run);
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (!extraPostBoot.isEmpty()) {
                // one post-boot file: the vendor's, then each extra file's commands (comments are fine)
                StringBuilder all = new StringBuilder();
                try {
                    all.append(Files.readString(postBoot)).append('\n');
                    for (Path extra : extraPostBoot) {
                        all.append(Files.readString(extra)).append('\n');
                    }
                    postBoot = Files.writeString(dir.resolve("postboot.asadmin"), all);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            ClusterHarness cluster = new ClusterHarness(run, port == 0 ? HarnessDatabase.create(vendor) : HarnessDatabase.create(vendor, port));
            Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
            try {
                try {
                    beforeBoot.prepare(cluster.database);
                } catch (Exception e) {
                    throw new IllegalStateException("preparing " + cluster.database + " before the nodes boot failed", e);
                }
                Set<Integer> ports = new HashSet<>();
                for (Map.Entry<String, Map<String, String>> e : nodeEnv.entrySet()) {
                    String name = e.getKey();
                    int port = freePort(ports);
                    List<String> command = new ArrayList<>();
                    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                    command.addAll(jvmOptions);
                    if (c1Only) {
                        command.add(C1_ONLY);
                    }
                    // Every listener on loopback, as the shipped pre-boot file and quickstart.sh do it: the
                    // HTTP listener and Payara's data grid (without these it took the wildcard address
                    // and the grid the machine's first interface), Micro's embedded H2 if it opens one.
                    command.addAll(List.of("-Dhazelcast.socket.bind.any=false", "-Dh2.bindAddress=" + LOOPBACK,
                            "-jar", micro.toString(), "--nocluster", "--port", String.valueOf(port),
                            "--addLibs", driver.toString(), "--prebootcommandfile", preBoot.toString(),
                            "--postbootcommandfile", postBoot.toString(), "--deploy",
                            nodeWars.getOrDefault(name, war).toString()));
                    Map<String, String> env = new HashMap<>(DEFAULT_TIMINGS);
                    env.put("CYCLIUM_BIND_ADDRESS", LOOPBACK);
                    // tests send wrong or not-yet-known passwords (a generated one before it is printed)
                    // from this one address; the login throttle would then refuse the right one for a
                    // while. ServerRealmIT sets the shipped default back and tests the throttle itself.
                    env.put("CYCLIUM_SECURITY_FAILED_LOGINS_BEFORE_DELAY", "1000");
                    env.putAll(cluster.database.nodeEnvironment());
                    env.put("CYCLIUM_NODE_IDENTITY", name);
                    env.putAll(common);
                    env.putAll(e.getValue());
                    cluster.nodes.put(name, new ClusterNode(name, port, command, env, dir.resolve(name + ".log")));
                }
                cluster.log("starting " + cluster.nodes.keySet() + " on " + cluster.database + ", logs in " + dir);
                cluster.startAll();
                return cluster;
            } catch (RuntimeException | Error e) {
                try {
                    cluster.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        /** {@code target/cluster}, beside the WAR when the build says where that is. */
        static Path clusterRoot() {
            return Path.of(System.getProperty("cyclium.micro.war", "target/cyclium-web-micro.war"))
                    .toAbsolutePath().getParent().resolve("cluster");
        }

        private static Path existing(String property, String fallback) {
            Path p = Path.of(System.getProperty(property, fallback)).toAbsolutePath().normalize();
            if (!Files.exists(p)) {
                throw new IllegalStateException("missing " + p + " (system property " + property + "; run mvn package first)");
            }
            return p;
        }

        /** A port free right now and not yet given to another node; Micro binds it a moment later. */
        private static int freePort(Set<Integer> taken) {
            while (true) {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
                    if (taken.add(s.getLocalPort())) {
                        return s.getLocalPort();
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("no free port", e);
                }
            }
        }
    }
}
