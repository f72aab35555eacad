package io.cyclium.servers;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A WildFly 38 standalone instance with a base folder and port offset of its own, set up by
 * server-config/wildfly as production is told to: with {@code CYCLIUM_METRICS_PASSWORD_FILE}, so
 * {@code /metrics} on the management interface answers only the management user "metrics" (HTTP
 * Digest); {@link #scrape()} logs in as that user.
 */
final class WildFlyServer extends FullServer {

    /** The management user configure.sh adds for /metrics. */
    static final String METRICS_USER = "metrics";

    private final int offset;
    private final String metricsPassword = "metrics-" + java.util.UUID.randomUUID();

    WildFlyServer(String name, Path dir, Map<String, String> environment) {
        super(name, dir, environment);
        Path home = Path.of(System.getProperty("cyclium.wildfly.home", "target/servers/wildfly-38.0.1.Final")).toAbsolutePath();
        // HTTP 8080, HTTPS 8443, management 9990/9993, AJP 8009, transactions 4712/4713, + offset
        this.offset = freeBlock(1_000, 22_000, 100, 8080, 8443, 9990, 9993, 8009, 4712, 4713);
        env.put("JBOSS_HOME", home.toString());
        env.put("CYCLIUM_BASE_DIR", dir.resolve("standalone").toAbsolutePath().toString());
        env.put("CYCLIUM_PORT_OFFSET", String.valueOf(offset));
        // standalone.sh puts it before the options standalone.conf sets (JAVA_OPTS would replace them)
        env.put("PREPEND_JAVA_OPTS", C1_ONLY);
    }

    /** Users for the {@code other} domain's ApplicationRealm, written between configure and start. */
    private final java.util.List<String[]> realmUsers = new java.util.ArrayList<>();

    @Override
    void install(Path ear) {
        configure();
        writeRealmUsers();
        startAndDeploy(ear);
    }

    /** A user of the ApplicationRealm in {@code group} (for cyclium.security.identity=server). */
    @Override
    void addRealmUser(String user, String password, String group) {
        realmUsers.add(new String[] {user, password, group});
    }

    /**
     * What {@code add-user.sh -a -u user -p password -g group} writes into the server's base folder:
     * the realm's digest hash (MD5 of user:ApplicationRealm:password) and the group.
     */
    private void writeRealmUsers() {
        Path conf = dir.resolve("standalone/configuration");
        try {
            for (String[] u : realmUsers) {
                String hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5")
                        .digest((u[0] + ":ApplicationRealm:" + u[1]).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                java.nio.file.Files.writeString(conf.resolve("application-users.properties"), u[0] + "=" + hash + "\n",
                        java.nio.file.StandardOpenOption.APPEND);
                java.nio.file.Files.writeString(conf.resolve("application-roles.properties"), u[0] + "=" + u[2] + "\n",
                        java.nio.file.StandardOpenOption.APPEND);
            }
        } catch (java.io.IOException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("could not write the ApplicationRealm's users in " + conf, e);
        }
    }

    /** configure.sh, with the metrics password file (the server stays stopped). */
    private void configure() {
        Path passwordFile = dir.resolve("metrics.pw");
        try {
            java.nio.file.Files.createDirectories(dir);
            // the same file format as Payara's asadmin password files (server-config/wildfly/configure.sh)
            java.nio.file.Files.writeString(passwordFile, "AS_ADMIN_USERPASSWORD=" + metricsPassword + "\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        env.put("CYCLIUM_METRICS_PASSWORD_FILE", passwordFile.toString());
        script("wildfly/configure.sh", Map.of());
    }

    private void startAndDeploy(Path ear) {
        script("wildfly/start.sh", Map.of());
        deploy(ear);
    }

    @Override
    void deploy(Path ear) {
        script("wildfly/deploy.sh", Map.of("CYCLIUM_EAR", ear.toString()));
    }

    @Override
    void stop() {
        long pid = pid();
        script("wildfly/stop.sh", Map.of());
        if (pid > 0) {
            awaitExit(pid, Duration.ofSeconds(60));
        }
    }

    @Override
    void start() {
        script("wildfly/start.sh", Map.of());
        awaitApp(Duration.ofSeconds(300));
    }

    @Override
    int httpPort() {
        return 8080 + offset;
    }

    @Override
    Path serverLog() {
        return dir.resolve("standalone/log/server.log");
    }

    @Override
    long pid() {
        return livePid(dir.resolve("standalone/wildfly.pid"));
    }

    @Override
    java.util.Optional<String> completedBatchExecutionSql() {
        // configure.sh applies batch-repository.cli: JBeret's JDBC repository (unquoted DDL: upper
        // case on H2 and MariaDB, lower case on PostgreSQL)
        return java.util.Optional.of("SELECT COUNT(*) FROM JOB_EXECUTION e JOIN JOB_INSTANCE i"
                + " ON i.JOBINSTANCEID = e.JOBINSTANCEID WHERE e.JOBEXECUTIONID = ? AND i.JOBNAME = 'cyclium-retention'"
                + " AND e.BATCHSTATUS = 'COMPLETED'");
    }

    /** /metrics as the management user "metrics", with this password (HTTP Digest). */
    HttpReplyText scrapeAs(String password) {
        return HttpReplyText.digestGet(metrics(), METRICS_USER, password);
    }

    @Override
    HttpReplyText scrape() {
        return scrapeAs(metricsPassword);
    }

    @Override
    URI metrics() {
        // configure.sh: the micrometer subsystem's Prometheus registry at /metrics, management port
        return URI.create("http://" + BIND + ":" + (9990 + offset) + "/metrics");
    }

    @Override
    public String toString() {
        return "WildFly " + name;
    }
}
