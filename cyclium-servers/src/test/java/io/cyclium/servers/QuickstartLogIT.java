package io.cyclium.servers;

import static io.cyclium.servers.EarSmokeIT.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick start's log is size-rotated and its node is told to listen on the bind address only.
 * quickstart.sh runs for real; the {@code java} on its PATH records its arguments and then writes
 * 2 MB of console output at once, as a runaway loop in a node would. (That a real node started
 * with these arguments listens on loopback only is EarSmokeIT's check of Payara Micro.)
 */
@Tag("ci")
class QuickstartLogIT {

    private static final int LINES = 20_000;
    private static final long CAP = 100_000;

    @TempDir
    Path temp;

    @Test
    void a_runaway_console_rotates_at_the_cap_and_the_node_binds_only_the_given_address() throws Exception {
        Path bin = Files.createDirectories(temp.resolve("bin"));
        Path args = temp.resolve("java-args");
        executable(bin.resolve("java"), "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$QUICKSTART_ARGS\"\n"
                + "i=0; while [ $i -lt " + LINES + " ]; do echo \"runaway line $i ........................................"
                + "..................................................\"; i=$((i+1)); done\nexec sleep 120\n");
        executable(bin.resolve("mvn"), "#!/bin/sh\necho 'the quick start tried to build: run mvn package first' >&2\nexit 1\n");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path home = temp.resolve("home");
        Path script = Path.of(System.getProperty("cyclium.config.dir", "../server-config"), "payara-micro/quickstart.sh");
        ProcessBuilder pb = new ProcessBuilder(script.toAbsolutePath().toString()).redirectErrorStream(true)
                .redirectOutput(temp.resolve("quickstart.out").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("CYCLIUM_"));
        pb.environment().put("PATH", bin + java.io.File.pathSeparator + System.getenv("PATH"));
        pb.environment().put("CYCLIUM_HOME", home.toString());
        pb.environment().put("CYCLIUM_PORT", String.valueOf(port));
        pb.environment().put("CYCLIUM_BIND_ADDRESS", "127.0.0.1");
        pb.environment().put("CYCLIUM_LOG_BYTES", String.valueOf(CAP));
        pb.environment().put("QUICKSTART_ARGS", args.toString());
        Process quickstart = pb.start();
        Path log = home.resolve("payara-micro.log");
        Path older = home.resolve("payara-micro.log.1");
        try {
            String last = "runaway line " + (LINES - 1) + " ";
            await("the node's last console line in the log", Duration.ofSeconds(60), () -> contains(log, last) || contains(older, last));
            long line = 200; // longer than any line written
            assertThat(Files.size(log)).as("the current log").isLessThan(CAP + line);
            assertThat(Files.size(older)).as("the one rotated file").isGreaterThanOrEqualTo(CAP).isLessThan(CAP + line);
            try (var files = Files.list(home)) {
                assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("payara-micro.log")))
                        .as("only the log and one old file, for " + LINES + " lines").containsExactlyInAnyOrder("payara-micro.log", "payara-micro.log.1");
            }
            List<String> given = Files.readAllLines(args);
            assertThat(given).as("the node's command line").contains("-Dh2.bindAddress=127.0.0.1", "-Dhazelcast.socket.bind.any=false", "--prebootcommandfile")
                    .anyMatch(a -> a.endsWith("server-config/payara-micro/preboot.asadmin"));
        } finally {
            quickstart.destroy(); // SIGTERM: the script stops its "node"
            quickstart.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static boolean contains(Path file, String text) {
        try {
            return Files.exists(file) && Files.readString(file, StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    }
}
