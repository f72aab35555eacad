package io.cyclium.cluster;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus (Debian's {@code prometheus} package, {@code /usr/bin/prometheus}; another
 * folder with {@code -Dcyclium.prometheus.bin}) on 127.0.0.1, scraping Cyclium nodes every second
 * with the scrape job docs/observability.md gives operators and loading a rules file. Its data
 * lives in a fresh folder; its output goes to a capped log. {@link #close()} kills it.
 */
final class PrometheusServer implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final int port;
    private final Path log;

    private PrometheusServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The binary of Debian's prometheus package (or the folder named by -Dcyclium.prometheus.bin); a clear error if absent. */
    static Path binary(String name) {
        Path bin = Path.of(System.getProperty("cyclium.prometheus.bin", "/usr/bin")).resolve(name);
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException(bin + " is not there: install Debian's prometheus package"
                    + " (apt-get install -y prometheus) or point -Dcyclium.prometheus.bin at a folder holding " + name);
        }
        return bin;
    }

    /** Starts Prometheus scraping {@code nodes} (job {@code cyclium}) and evaluating {@code rules} every second. */
    static PrometheusServer start(Path dir, List<ClusterNode> nodes, Path rules) {
        try {
            Files.createDirectories(dir);
            int port = PrivateDatabaseServer.freePort();
            StringBuilder targets = new StringBuilder();
            for (ClusterNode node : nodes) {
                targets.append(targets.isEmpty() ? "" : ", ").append("'127.0.0.1:").append(node.port()).append('\'');
            }
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    scrape_configs:
                      - job_name: cyclium
                        metrics_path: /metrics
                        params:
                          scope: [application]
                        static_configs:
                          - targets: [%s]
                    rule_files:
                      - %s
                    """.formatted(targets, rules.toAbsolutePath()));
            Path log = dir.resolve("prometheus.log");
            Process p = new ProcessBuilder(binary("prometheus").toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--storage.tsdb.retention.time=1h")
                    .redirectErrorStream(true).start();
            ClusterNode.copyCapped(p.getInputStream(), log, 16L * 1024 * 1024, "prometheus");
            PrometheusServer server = new PrometheusServer(p, port, log);
            server.awaitReady(Duration.ofSeconds(30));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("prometheus exited with " + process.exitValue() + ": " + tail());
            }
            try {
                if (HTTP.send(HttpRequest.newBuilder(base().resolve("/-/ready")).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            PrivateDatabaseServer.sleep(200);
        }
        throw new IllegalStateException("prometheus not ready within " + timeout.toSeconds() + " s: " + tail());
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + port);
    }

    Path log() {
        return log;
    }

    /** {@code GET /api/v1/<path>?<params>}: the whole answer (status, data, error, warnings). */
    JsonObject api(String path, String... params) {
        StringBuilder query = new StringBuilder();
        for (int i = 0; i < params.length; i += 2) {
            query.append(i == 0 ? "?" : "&").append(params[i]).append('=')
                    .append(URLEncoder.encode(params[i + 1], StandardCharsets.UTF_8));
        }
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base().resolve("/api/v1/" + path + query))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
            try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
                return reader.readObject();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An instant query at now. */
    JsonObject query(String promql) {
        return api("query", "query", promql);
    }

    /** A range query, {@code step} apart. */
    JsonObject queryRange(String promql, Instant from, Instant to, Duration step) {
        return api("query_range", "query", promql, "start", String.valueOf(from.getEpochSecond()),
                "end", String.valueOf(to.getEpochSecond()), "step", step.toSeconds() + "s");
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of its log. */
    String tail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
            return "last lines of " + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }
}
