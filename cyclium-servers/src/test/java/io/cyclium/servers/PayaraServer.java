package io.cyclium.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A Payara Server 6 domain of its own (folder and port base), set up by server-config/payara-server. */
final class PayaraServer extends FullServer {

    private final int portBase;

    PayaraServer(String name, Path dir, Map<String, String> environment) {
        super(name, dir, environment);
        Path home = Path.of(System.getProperty("cyclium.payara.home", "target/servers/payara6")).toAbsolutePath();
        // admin +48, HTTP +80/+81, IIOP +37..39, JMX +86, OSGi shell +66, data grid +59
        this.portBase = freeBlock(10_000, 32_000, 100, 48, 80, 81, 37, 38, 39, 86, 66, 59, 9);
        env.put("PAYARA_HOME", home.toString());
        env.put("CYCLIUM_DOMAIN", "cyclium");
        env.put("CYCLIUM_DOMAIN_DIR", dir.resolve("domains").toAbsolutePath().toString());
        env.put("CYCLIUM_PORT_BASE", String.valueOf(portBase));
        env.put("CYCLIUM_JVM_OPTIONS", C1_ONLY);
        env.put("AS_EXTRA_JAVA_OPTS", C1_ONLY);
    }

    /** Users for the domain's file realm, added with add-user.sh between configure and deploy. */
    private final List<String[]> realmUsers = new ArrayList<>();

    @Override
    void install(Path ear) {
        script("payara-server/create-domain.sh", Map.of());
        script("payara-server/configure.sh", Map.of());
        for (String[] u : realmUsers) {
            Path passwordFile = dir.resolve("realm-user-" + u[0] + ".txt");
            try {
                Files.writeString(passwordFile, "AS_ADMIN_USERPASSWORD=" + u[1] + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            script("payara-server/add-user.sh", Map.of("CYCLIUM_USER", u[0], "CYCLIUM_GROUP", u[2],
                    "CYCLIUM_USER_PASSWORD_FILE", passwordFile.toString()));
        }
        deploy(ear);
    }

    /** A user of the file realm in {@code group} (for cyclium.security.identity=server), as server-config adds one. */
    @Override
    void addRealmUser(String user, String password, String group) {
        realmUsers.add(new String[] {user, password, group});
    }

    @Override
    void deploy(Path ear) {
        script("payara-server/deploy.sh", Map.of("CYCLIUM_EAR", ear.toString()));
    }

    @Override
    void stop() {
        long pid = pid();
        script("payara-server/stop-domain.sh", Map.of());
        if (pid > 0) {
            awaitExit(pid, Duration.ofSeconds(60));
        }
    }

    @Override
    void start() {
        script("payara-server/start-domain.sh", Map.of());
        awaitApp(Duration.ofSeconds(300));
    }

    @Override
    int httpPort() {
        return portBase + 80;
    }

    @Override
    Path serverLog() {
        return dir.resolve("domains/cyclium/logs/server.log");
    }

    @Override
    long pid() {
        return livePid(dir.resolve("domains/cyclium/config/pid"));
    }

    @Override
    java.util.Optional<String> completedBatchExecutionSql() {
        // configure.sh sets the batch runtime's datasource to jdbc/cyclium, except on MariaDB
        return "mariadb".equals(env.get("CYCLIUM_DB")) ? java.util.Optional.empty()
                : java.util.Optional.of("SELECT COUNT(*) FROM executioninstancedata e JOIN jobinstancedata i"
                        + " ON i.jobinstanceid = e.jobinstanceid WHERE e.jobexecid = ? AND i.name = 'cyclium-retention'"
                        + " AND e.batchstatus = 'COMPLETED'");
    }

    @Override
    URI metrics() {
        return URI.create("http://" + BIND + ":" + httpPort() + "/metrics?scope=application");
    }

    @Override
    public String toString() {
        return "Payara Server " + name;
    }
}
