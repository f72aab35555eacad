package io.cyclium.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick start's admin password, without booting a second server: quickstart.sh runs for real,
 * but the {@code java} on its PATH only records the environment it was started with and stays
 * alive, and this test answers the script's two HTTP calls in its place (the health probe, and
 * {@code nodes/self} with Basic, accepted only for the password that {@code java} was given).
 * So the printed password is the one the server process is configured with, and the script's own
 * authenticated call with it succeeded. (That a node started with CYCLIUM_ADMIN_PASSWORD accepts
 * it is ConsoleSecurityIT's business.)
 */
class QuickstartLoginIT {

    private static final Pattern GENERATED = Pattern.compile("password (\\S+) \\(generated, kept in (\\S+)\\)");
    private static final String SELF = "{\"nodeIdentity\":\"stub-node\"}";

    @TempDir
    Path temp;

    /** What one start printed, and the admin password its java process received. */
    record Start(String output, String passwordGivenToJava) {
    }

    private Start quickstart(Path home, Map<String, String> env) throws Exception {
        Path bin = Files.createDirectories(temp.resolve("bin"));
        Path record = temp.resolve("java-env");
        Files.deleteIfExists(record);
        write(bin.resolve("java"), "#!/bin/sh\nprintf '%s' \"$CYCLIUM_ADMIN_PASSWORD\" > \"$QUICKSTART_RECORD.tmp\"\n"
                + "mv \"$QUICKSTART_RECORD.tmp\" \"$QUICKSTART_RECORD\"\nexec sleep 120\n");
        write(bin.resolve("mvn"), "#!/bin/sh\necho 'the quick start tried to build: run mvn package first' >&2\nexit 1\n");

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        HttpServer node = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        node.createContext("/cyclium/api/health", x -> answer(x, 200, "{\"status\":\"up\"}"));
        node.createContext("/cyclium/api/nodes/self", x -> {
            String expected = "Basic " + Base64.getEncoder().encodeToString(("admin:" + readOrEmpty(record))
                    .getBytes(StandardCharsets.UTF_8));
            boolean ok = Files.exists(record) && expected.equals(x.getRequestHeaders().getFirst("Authorization"));
            answer(x, ok ? 200 : 401, ok ? SELF : "");
        });
        node.start();
        File script = new File(System.getProperty("cyclium.config.dir", "../server-config"), "payara-micro/quickstart.sh");
        ProcessBuilder pb = new ProcessBuilder(script.getAbsolutePath()).redirectErrorStream(true);
        pb.environment().remove("CYCLIUM_ADMIN_PASSWORD"); // failsafe sets it for the Arquillian node
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        pb.environment().put("CYCLIUM_HOME", home.toString());
        pb.environment().put("CYCLIUM_PORT", String.valueOf(port));
        pb.environment().put("QUICKSTART_RECORD", record.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            Thread watchdog = new Thread(() -> {
                try {
                    if (!p.waitFor(60, TimeUnit.SECONDS)) {
                        p.destroy();
                    }
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
            watchdog.setDaemon(true);
            watchdog.start();
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
                if (line.startsWith("Press Ctrl-C")) {
                    break;
                }
            }
        } finally {
            p.destroy(); // SIGTERM: the script stops its "server" and exits
            p.waitFor(20, TimeUnit.SECONDS);
            node.stop(0);
        }
        String output = String.join("\n", lines);
        assertThat(output).as("the quick start reached 'ready'").contains("Press Ctrl-C");
        return new Start(output, readOrEmpty(record));
    }

    @Test
    void without_a_password_the_quick_start_generates_one_starts_the_server_with_it_and_prints_it() throws Exception {
        Path home = temp.resolve("home");
        Start start = quickstart(home, Map.of());

        Matcher m = GENERATED.matcher(start.output());
        assertThat(m.find()).as("the login line in:\n" + start.output()).isTrue();
        String printed = m.group(1);
        assertThat(printed).matches("[A-Za-z0-9]{16,}");
        assertThat(start.passwordGivenToJava()).as("the password the server process got").isEqualTo(printed);
        assertThat(start.output()).as("the script's own login with it worked").contains("node " + SELF);
        Path kept = home.resolve("admin-password");
        assertThat(m.group(2)).isEqualTo(kept.toString());
        assertThat(Files.readString(kept).trim()).isEqualTo(printed);
        assertThat(Files.getPosixFilePermissions(kept)).as("only the owner may read it")
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void the_quick_start_serves_metrics_over_https_to_a_generated_metrics_user_only() throws Exception {
        Path home = temp.resolve("home");
        Start start = quickstart(home, Map.of());
        Path kept = home.resolve("metrics-password");
        String password = Files.readString(kept).trim();
        assertThat(password).matches("[A-Za-z0-9]{16,}");
        assertThat(Files.getPosixFilePermissions(kept)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        Matcher line = Pattern.compile("Metrics: +curl -k -u metrics:(\\S+) https://127\\.0\\.0\\.1:(\\d+)/metrics").matcher(start.output());
        assertThat(line.find()).as("the metrics line in:\n" + start.output()).isTrue();
        assertThat(line.group(1)).isEqualTo(password);
        // the post-boot file the node gets: the database's pool, then Payara's metrics security and the user
        String postBoot = Files.readString(home.resolve("postboot.asadmin"));
        assertThat(postBoot).contains("create-jdbc-resource --connectionpoolid=cyclium-pool jdbc/cyclium")
                .contains("set-metrics-configuration --securityenabled=true --roles=cyclium-metrics")
                .contains("create-file-user --groups=cyclium-metrics --passwordfile=${ENV=CYCLIUM_METRICS_PASSWORD_FILE} metrics");
        Path passwordFile = home.resolve("metrics-password.asadmin");
        assertThat(Files.readString(passwordFile)).isEqualTo("AS_ADMIN_USERPASSWORD=" + password + "\n");
        assertThat(Files.getPosixFilePermissions(passwordFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void a_second_start_reuses_the_kept_password_and_another_home_gets_another() throws Exception {
        Path home = temp.resolve("home");
        String first = quickstart(home, Map.of()).passwordGivenToJava();
        String second = quickstart(home, Map.of()).passwordGivenToJava();
        String elsewhere = quickstart(temp.resolve("other-home"), Map.of()).passwordGivenToJava();
        assertThat(second).isEqualTo(first);
        assertThat(elsewhere).isNotEqualTo(first);
    }

    @Test
    void a_given_password_is_used_but_neither_printed_nor_kept() throws Exception {
        Path home = temp.resolve("home");
        String given = "given-" + System.nanoTime();
        Start start = quickstart(home, Map.of("CYCLIUM_ADMIN_PASSWORD", given));
        assertThat(start.passwordGivenToJava()).isEqualTo(given);
        assertThat(start.output()).doesNotContain(given).contains("the password in CYCLIUM_ADMIN_PASSWORD")
                .contains("node " + SELF);
        assertThat(home.resolve("admin-password")).doesNotExist();
    }

    @Test
    void no_console_password_is_shipped_in_the_sources_the_configuration_or_the_war() throws Exception {
        Pattern assignment = Pattern.compile(
                "(admin|viewer)-password\\s*=\\s*[^\\s$]|CYCLIUM_(ADMIN|VIEWER)_PASSWORD=[^\\s$\"{]"
                        + "|CYCLIUM_(ADMIN|VIEWER)_PASSWORD>[^<$]");
        Path top = Path.of("..").toAbsolutePath().normalize();
        List<Path> roots = List.of(top.resolve("server-config"), top.resolve("cyclium-ejb/src/main"),
                top.resolve("cyclium-web/src/main"), top.resolve("cyclium-ear"), top.resolve("cyclium-web/target/cyclium-micro"));
        int read = 0;
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).filter(QuickstartLoginIT::isText).toList()) {
                    String text = Files.readString(f, StandardCharsets.ISO_8859_1);
                    assertThat(assignment.matcher(text).find()).as("a password set in " + f).isFalse();
                    read++;
                }
            }
        }
        assertThat(read).as("files read").isGreaterThan(50);
        assertThat(Files.readString(top.resolve(".gitignore"))).as("the quick start's data stays out of git").contains("/run/");
    }

    private static boolean isText(Path f) {
        String name = f.getFileName().toString();
        return Stream.of(".properties", ".xml", ".sh", ".asadmin", ".java", ".xhtml", ".json", ".cli", ".conf", ".env", ".yaml")
                .anyMatch(name::endsWith) || !name.contains(".");
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE));
    }

    private static String readOrEmpty(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            x.getResponseBody().write(bytes);
        }
        x.close();
    }
}
