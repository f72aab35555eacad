package io.cyclium.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * A real Keycloak (the server distribution {@code org.keycloak:keycloak-quarkus-dist}, copied from
 * Maven Central into {@code target/keycloak/} by the build) in development mode — H2 in its own
 * data folder, HTTP on a loopback port — with one realm imported from a JSON file the test wrote.
 * Keycloak 26 needs Java 21 or newer: the JDK comes from {@code -Dcyclium.keycloak.java-home} or
 * the newest one of at least 21 under {@code /usr/lib/jvm}. Its output goes to a capped log next to
 * the cluster's. {@link #close()} stops it and everything it started.
 */
public final class KeycloakServer implements AutoCloseable {

    /** Keycloak's output beyond this is dropped (a dev-mode boot writes about 20 kB). */
    static final long LOG_CAP = 8L * 1024 * 1024;
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(Long.getLong("cyclium.keycloak.boot-timeout-s", 420));

    private final int port;
    private final Path log;
    private final Process process;
    private final String realm;

    private KeycloakServer(int port, Path log, Process process, String realm) {
        this.port = port;
        this.log = log;
        this.process = process;
        this.realm = realm;
    }

    /**
     * Starts Keycloak with {@code realmJson} (realm {@code realm}) to import; returns at once. The
     * realm and users exist once {@link #awaitReady()} returned.
     */
    public static KeycloakServer start(String realm, String realmJson, Path runDir) throws IOException {
        Path home = unpacked();
        // a fresh database and import folder per start: dev mode keeps H2 under <home>/data
        Path data = home.resolve("data");
        deleteTree(data);
        Files.createDirectories(data.resolve("import"));
        Files.writeString(data.resolve("import").resolve(realm + "-realm.json"), realmJson);
        int port = freePort();
        Files.createDirectories(runDir);
        Path log = runDir.resolve("keycloak.log");
        List<String> command = List.of(home.resolve("bin/kc.sh").toString(), "start-dev", "--import-realm",
                "--http-host=" + ClusterHarness.LOOPBACK, "--http-port=" + port);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("JAVA_HOME", javaHome().toString());
        // a good neighbour on two cores: a small heap, and C1 only (a test's Keycloak lives a minute)
        env.put("JAVA_OPTS_KC_HEAP", "-Xms64m -Xmx512m");
        env.put("JAVA_OPTS_APPEND", "-XX:TieredStopAtLevel=1");
        Files.writeString(log, "==== " + Instant.now() + ": " + String.join(" ", command) + "\n");
        Process p = pb.start();
        ClusterNode.copyCapped(p.getInputStream(), log, LOG_CAP, "keycloak");
        return new KeycloakServer(port, log, p, realm);
    }

    /** Waits until the realm's discovery document answers (Keycloak is up and the import is done). */
    public KeycloakServer awaitReady() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Instant deadline = Instant.now().plus(BOOT_TIMEOUT);
        Instant begin = Instant.now();
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Keycloak exited with " + process.exitValue() + " during start-up. " + tail());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(issuer() + "/.well-known/openid-configuration"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    System.out.println("[keycloak] ready in " + Duration.between(begin, Instant.now()).toSeconds()
                            + " s more (port " + port + ")");
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("Keycloak not ready within " + BOOT_TIMEOUT.toSeconds() + " s. " + tail());
    }

    /** The realm's issuer, as Keycloak writes it into tokens and its discovery document. */
    public String issuer() {
        return "http://" + ClusterHarness.LOOPBACK + ":" + port + "/realms/" + realm;
    }

    /**
     * An access token for {@code user} from the realm's token endpoint with the password grant
     * (Keycloak's direct access grant, enabled for the client in the realm file); {@code secret}
     * null for a public client.
     */
    public String accessToken(String clientId, String secret, String user, String password) throws IOException, InterruptedException {
        String form = "grant_type=password&scope=openid&client_id=" + enc(clientId) + (secret == null ? "" : "&client_secret=" + enc(secret))
                + "&username=" + enc(user) + "&password=" + enc(password);
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(issuer() + "/protocol/openid-connect/token"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("no token for " + user + " from client " + clientId + ": " + r.statusCode() + " " + r.body());
        }
        try (jakarta.json.JsonReader reader = jakarta.json.Json.createReader(new java.io.StringReader(r.body()))) {
            return reader.readObject().getString("access_token");
        }
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "Last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    @Override
    public void close() {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        process.destroy();
        all.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * The distribution unpacked under {@code target/keycloak/} once (about 170 MB; later runs reuse
     * it, and with it the Quarkus build Keycloak makes at its first start).
     */
    private static synchronized Path unpacked() throws IOException {
        Path zip = Path.of(System.getProperty("cyclium.keycloak.zip", "target/keycloak/keycloak-quarkus-dist.zip")).toAbsolutePath();
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("missing " + zip + " (system property cyclium.keycloak.zip; mvn package copies it"
                    + " from Maven Central)");
        }
        Path into = zip.resolveSibling("dist");
        Path marker = into.resolve(".unpacked-from-" + Files.size(zip));
        if (Files.exists(marker)) {
            return home(into);
        }
        deleteTree(into);
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("zip entry outside the target folder: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Path home = home(into);
        for (String script : new String[] {"bin/kc.sh", "bin/kcadm.sh"}) {
            home.resolve(script).toFile().setExecutable(true);
        }
        Files.createFile(marker);
        return home;
    }

    private static Path home(Path into) throws IOException {
        try (Stream<Path> s = Files.list(into)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("bin/kc.sh"))).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no keycloak-*/bin/kc.sh in " + into));
        }
    }

    /** A JDK of at least 21 (Keycloak 26's minimum): the configured one, or the newest in /usr/lib/jvm. */
    static Path javaHome() {
        String configured = System.getProperty("cyclium.keycloak.java-home");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Optional<Path> found = Optional.empty();
        int best = 0;
        try (Stream<Path> jvms = Files.list(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : jvms.sorted(Comparator.naturalOrder()).toList()) {
                int major = majorVersion(jdk);
                if (major >= 21 && major > best && Files.isExecutable(jdk.resolve("bin/java"))) {
                    best = major;
                    found = Optional.of(jdk);
                }
            }
        } catch (IOException e) {
            // no /usr/lib/jvm: fall through to the message below
        }
        return found.orElseThrow(() -> new IllegalStateException("Keycloak 26 needs Java 21 or newer and none was found under"
                + " /usr/lib/jvm: install one (apt-get install openjdk-21-jdk-headless) or set -Dcyclium.keycloak.java-home"));
    }

    /** JAVA_VERSION="25.0.1" in the JDK's release file → 25; 0 when unreadable. */
    private static int majorVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"), StandardCharsets.UTF_8)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(ClusterHarness.LOOPBACK))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Reads a resource of the test class path as text. */
    public static String resource(String name) {
        try (InputStream in = KeycloakServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
