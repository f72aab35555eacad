package io.cyclium.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * A Payara Micro process with the shipped pre-boot file (HTTP on the bind address), the post-boot
 * file of its database (H2: the TCP server one), started the way docs/deploying/payara-micro.md says. Micro has no properties step: the {@code CYCLIUM_PROPERTIES} file becomes
 * environment variables ({@code cyclium.a.b-c} → {@code CYCLIUM_A_B_C}, MicroProfile Config's own
 * mapping). Its console output is the log, copied by the test and cut off at 20 MB. Micro cannot
 * redeploy in place: {@link #deploy} restarts the process with the WAR.
 */
final class MicroNode extends FullServer {

    private static final long LOG_CAP = 20L * 1024 * 1024;

    private final int port;
    private final Path log;
    private Process process;
    private Thread copier;
    private Path war;

    MicroNode(String name, Path dir, Map<String, String> environment) {
        super(name, dir, environment);
        this.port = freeBlock(10_000, 32_000, 7, 0);
        this.log = dir.resolve("micro.log");
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(environment.get("CYCLIUM_PROPERTIES")))) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        p.forEach((k, v) -> env.put(k.toString().toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"), v.toString()));
    }

    @Override
    void install(Path war) {
        this.war = war;
        start();
    }

    @Override
    void deploy(Path war) {
        stop();
        install(war);
    }

    @Override
    void stop() {
        if (process != null && process.isAlive()) {
            // SIGTERM: Micro shuts down and the node drains. Through the process handle: Process.destroy()
            // also closes our end of the output pipe, and the drain's summary, written after the
            // signal, was lost with it.
            process.toHandle().destroy();
            process.onExit().orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
            // the process has ended but its last lines (the drain's summary) may still be in the pipe
            try {
                copier.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    void start() {
        Path payara = Path.of(System.getProperty("cyclium.payara.micro.dir", "../cyclium-web/target/payara")).toAbsolutePath().normalize();
        String db = env.get("CYCLIUM_DB");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", FullServer.C1_ONLY, "-Dhazelcast.socket.bind.any=false", "-Dh2.bindAddress=" + env.get("CYCLIUM_BIND_ADDRESS"), "-jar", payara.resolve("payara-micro.jar").toString(), "--nocluster",
                "--port", String.valueOf(port),
                "--addLibs", Path.of(env.get("CYCLIUM_DRIVER_JAR")).toString(),
                "--prebootcommandfile", configDir.resolve("payara-micro/preboot.asadmin").toString(),
                // H2 through a TCP server, as on the full servers: an embedded file closes under the drain
                "--postbootcommandfile", configDir.resolve("payara-micro/postboot-" + (db.equals("h2") ? "h2-server" : db) + ".asadmin").toString(),
                "--deploy", war.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("CYCLIUM_"));
        pb.environment().putAll(env);
        try {
            Files.createDirectories(dir);
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copier = new Thread(() -> copyCapped(process.getInputStream()), "micro-log-" + name);
        copier.setDaemon(true);
        copier.start();
        awaitApp(Duration.ofSeconds(300));
    }

    /** The console output into the log file, up to the cap; the rest is read and dropped. */
    private void copyCapped(InputStream out) {
        try (out; OutputStream file = Files.newOutputStream(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            byte[] buf = new byte[8192];
            long written = Files.size(log);
            for (int n; (n = out.read(buf)) > 0; ) {
                if (written < LOG_CAP) {
                    file.write(buf, 0, (int) Math.min(n, LOG_CAP - written));
                    file.flush();
                    written += n;
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    @Override
    int httpPort() {
        return port;
    }

    @Override
    Path serverLog() {
        return log;
    }

    @Override
    long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    @Override
    URI metrics() {
        return URI.create("http://" + BIND + ":" + httpPort() + "/metrics?scope=application");
    }

    @Override
    boolean redeploysInPlace() {
        return false;
    }

    @Override
    boolean drainSummaryIsJul() {
        return false;
    }

    @Override
    public String toString() {
        return "Payara Micro " + name;
    }
}
