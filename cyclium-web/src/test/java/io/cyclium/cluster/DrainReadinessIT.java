package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.actors.ClusterActor;
import io.cyclium.it.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A draining node tells a load balancer so: one Payara Micro node runs an episode whose steps take
 * 4 s and gets SIGTERM; while its drain waits for that step to end (the process lives on for
 * seconds) both readiness probes — MicroProfile Health's {@code /health/ready} and
 * {@code /cyclium/api/health?probe=ready} — stop answering 200 and never answer it again before the
 * process exits, and the drain did run (the episode's interrupted marker). Before the SIGTERM both
 * answered 200.
 *
 * <p>Found here: on Payara Micro the 503 during a SIGTERM drain is the server's, not Cyclium's
 * not-draining check — Micro takes the application out of service (MicroProfile Health answers "No
 * Application deployed", the API an HTML 503) before the singletons' @PreDestroy starts the drain,
 * so the application's own check is never asked then: {@code /health/ready} answers 503 ("No
 * Application deployed"), the API probe an HTML 503 and then 404, and {@code /health/live} 503 too.
 * What a load balancer needs holds — nothing says ready once the node is going.
 */
class DrainReadinessIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    /** One probe answer, or none (connection refused: the listener is gone). */
    record Probe(Instant at, String url, int status, String body) {
    }

    @Test
    void a_draining_node_answers_not_ready_on_both_probes_until_it_exits() throws Exception {
        try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .war(ClusterHarness.productWarWith("cyclium-drain-it.war", ClusterActor.class))
                .node("node-a", Map.of("CYCLIUM_EPISODE_SHUTDOWN_MS", "20000"))
                .start()) {
            ClusterNode node = cluster.node("node-a");
            String mp = "http://127.0.0.1:" + node.port() + "/health/ready";
            String api = "http://127.0.0.1:" + node.port() + "/cyclium/api/health?probe=ready";
            String live = "http://127.0.0.1:" + node.port() + "/health/live";
            assertThat(probe(mp).status()).isEqualTo(200);
            assertThat(probe(api).status()).isEqualTo(200);

            HttpReply started = node.post("/episodes", "{\"actor\":\"cluster_actor\",\"expectation\":\"long_restart\","
                    + "\"payload\":{\"steps\":10,\"stepMs\":4000},\"idempotencyKey\":\"" + UUID.randomUUID() + "\"}");
            assertThat(started.status()).as(started.toString()).isEqualTo(201);
            String id = started.jsonObject().getString("episodeId");
            Await.until(Duration.ofSeconds(60), "episode " + id + " to run its first step", () -> !cluster.database()
                    .query("SELECT 1 AS x FROM cyclium_episode_steps WHERE episode_id = ?", id).isEmpty());

            Instant sent = cluster.sigterm("node-a");
            List<Probe> probes = new ArrayList<>();
            while (node.isAlive()) {
                for (String url : List.of(mp, api, live)) {
                    Probe p = probe(url);
                    if (p != null) {
                        probes.add(p);
                    }
                }
                Thread.sleep(50);
            }
            Instant exited = cluster.waitForExit("node-a", Duration.ofSeconds(5));
            List<Probe> ready = probes.stream().filter(p -> !p.url().equals(live)).toList();
            List<Probe> notReady = ready.stream().filter(p -> p.status() != 200).toList();
            probes.stream().collect(java.util.stream.Collectors.groupingBy(p -> p.url() + " " + p.status(),
                    java.util.TreeMap::new, java.util.stream.Collectors.counting()))
                    .forEach((k, n) -> System.out.println("[drain] " + k + ": " + n + " answer(s)"));
            System.out.printf("[figures] drain readiness: SIGTERM→exit %d ms, %d readiness answers during it (%d of them not 200),"
                    + " first not-ready %d ms after SIGTERM%n", Duration.between(sent, exited).toMillis(), ready.size(), notReady.size(),
                    notReady.isEmpty() ? -1 : Duration.between(sent, notReady.get(0).at()).toMillis());

            assertThat(notReady.stream().map(Probe::url).distinct()).as("both probes said not ready: " + ready)
                    .containsExactlyInAnyOrder(mp, api);
            for (String url : List.of(mp, api)) {
                Instant first = notReady.stream().filter(p -> p.url().equals(url)).findFirst().orElseThrow().at();
                assertThat(ready.stream().filter(p -> p.url().equals(url) && p.status() == 200 && p.at().isAfter(first)))
                        .as(url + " ready again after it said not ready").isEmpty();
                assertThat(first).as("not ready before the process exited").isBefore(exited);
            }
            assertThat(cluster.database().query("SELECT 1 AS x FROM cyclium_episode_steps WHERE episode_id = ? AND kind = 'interrupted'"
                    + " AND node_identity = 'node-a'", id)).as("the drain ran and marked the episode interrupted").hasSize(1);
        }
    }

    private static Probe probe(String url) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Probe(Instant.now(), url, r.statusCode(), r.body());
        } catch (java.io.IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
