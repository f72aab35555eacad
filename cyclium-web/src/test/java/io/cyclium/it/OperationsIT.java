package io.cyclium.it;

import static io.cyclium.it.ApiCalls.admin;
import static io.cyclium.it.ApiCalls.json;
import static io.cyclium.it.ApiCalls.send;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Operations against a real Payara Micro with the test actors: MicroProfile Metrics in Prometheus
 * text, the retention batch job run from the API (archival frees a dedupe key), and the health
 * probes an orchestrator uses.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class OperationsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployment.productWarWithTestActors();
    }

    @ArquillianResource
    URL base;

    /** The server's own root (MicroProfile endpoints live there, not under /cyclium). */
    private URI server(String path) {
        return URI.create(base.toString()).resolve("/" + path);
    }

    private String scrape() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(server("metrics?scope=application"))
                .header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET /metrics?scope=application").isEqualTo(200);
        return r.body();
    }

    /** Sum of every sample of {@code metric} (Prometheus text) whose labels contain all of {@code labels}. */
    static double sample(String text, String metric, String... labels) {
        double sum = 0;
        Pattern line = Pattern.compile("^" + Pattern.quote(metric) + "(\\{[^}]*\\})?\\s+([-0-9.eE+]+)", Pattern.MULTILINE);
        Matcher m = line.matcher(text);
        while (m.find()) {
            String l = m.group(1) == null ? "" : m.group(1);
            boolean all = true;
            for (String want : labels) {
                all &= l.contains(want);
            }
            if (all) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    private String postEvent(String id) throws Exception {
        HttpResponse<String> r = admin(base, "POST", "api/events",
                "{\"type\":\"it.echo\",\"id\":\"" + id + "\",\"payload\":{\"n\":1}}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return json(r).asJsonObject().getJsonArray("matched").getJsonObject(0).getString("dedupeKey");
    }

    private List<JsonObject> episodesWithKey(String key) {
        try {
            JsonArray all = json(admin(base, "GET", "api/episodes?actor=it_actor&expectation=echo&limit=200", null)).asJsonArray();
            return all.stream().map(JsonValue::asJsonObject).filter(e -> key.equals(e.getString("dedupeKey", null))).toList();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private JsonObject awaitDone(String key, int count) {
        return Await.until(WAIT, count + " done episode(s) with key " + key, () -> {
            List<JsonObject> done = episodesWithKey(key).stream().filter(e -> "done".equals(e.getString("status"))).toList();
            return done.size() >= count ? done.get(0) : null;
        });
    }

    private JsonObject awaitRun(String runId) {
        return Await.until(WAIT, "retention run " + runId + " to end", () -> {
            try {
                for (JsonValue v : json(admin(base, "GET", "api/maintenance/executions?limit=20", null)).asJsonArray()) {
                    JsonObject x = v.asJsonObject();
                    String status = x.getJsonObject("run").getString("status");
                    if (runId.equals(x.getJsonObject("run").getString("id")) && !status.equals("running")) {
                        return x;
                    }
                }
                return null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void counters_in_prometheus_text_move_as_episodes_run_and_retention_archives() throws Exception {
        String before = scrape();
        String eventId = "ops-" + UUID.randomUUID();
        String key = postEvent(eventId);
        JsonObject episode = awaitDone(key, 1);
        String after = Await.until(WAIT, "the counters to move", () -> {
            try {
                String text = scrape();
                return sample(text, "cyclium_episode_finished_total", "actor=\"it_actor\"")
                        > sample(before, "cyclium_episode_finished_total", "actor=\"it_actor\"") ? text : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(after).contains("# TYPE cyclium_episode_created_total counter");
        assertThat(sample(after, "cyclium_episode_created_total", "actor=\"it_actor\"", "expectation=\"echo\""))
                .isGreaterThan(sample(before, "cyclium_episode_created_total", "actor=\"it_actor\"", "expectation=\"echo\""));
        assertThat(sample(after, "cyclium_event_received_total", "type=\"it.echo\""))
                .isGreaterThan(sample(before, "cyclium_event_received_total", "type=\"it.echo\""));

        // the same event again: deduplicated while the first episode holds the key
        assertThat(postEvent(eventId)).isEqualTo(key);
        Thread.sleep(1_500);
        assertThat(episodesWithKey(key)).hasSize(1);

        // eight days old: past the default archive-after (P7D)
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "UPDATE cyclium_episodes SET finished_at = DATEADD('DAY', -8, finished_at) WHERE id = ?")) {
            s.setString(1, episode.getString("id"));
            assertThat(s.executeUpdate()).isOne();
        }
        HttpResponse<String> started = admin(base, "POST", "api/maintenance/retention", null);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String runId = json(started).asJsonObject().getString("runId");
        JsonObject run = awaitRun(runId);

        assertThat(run.getJsonObject("run").getString("status")).as(run.toString()).isEqualTo("completed");
        assertThat(run.getJsonObject("run").getString("trigger")).isEqualTo("manual");
        assertThat(run.getJsonObject("run").getString("requestedBy")).isEqualTo("admin");
        assertThat(run.getJsonArray("steps").stream().map(v -> v.asJsonObject().getString("step") + ":" + v.asJsonObject().getString("status")))
                .containsExactly("archive-episodes:completed", "purge-episodes:skipped", "prune-claims:completed",
                        "prune-trigger-requests:completed");
        JsonObject archive = run.getJsonArray("steps").getJsonObject(0);
        assertThat(archive.getJsonNumber("written").longValue()).isGreaterThanOrEqualTo(1);
        assertThat(archive.getJsonNumber("read").longValue()).isGreaterThanOrEqualTo(archive.getJsonNumber("written").longValue());
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "SELECT archived_at FROM cyclium_episodes WHERE id = ?")) {
            s.setString(1, episode.getString("id"));
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getTimestamp(1)).as("archived").isNotNull();
            }
        }

        // after archival the same event starts a new episode
        assertThat(postEvent(eventId)).isEqualTo(key);
        awaitDone(key, 2);
        assertThat(episodesWithKey(key)).hasSize(2);

        String last = scrape();
        assertThat(sample(last, "cyclium_retention_archived_total")).isGreaterThanOrEqualTo(1);
        assertThat(sample(last, "cyclium_retention_runs_total", "outcome=\"completed\""))
                .isGreaterThan(sample(before, "cyclium_retention_runs_total", "outcome=\"completed\""));
    }

    @Test
    void the_runtime_metrics_the_readme_lists_are_exported_and_move() throws Exception {
        String before = scrape();
        String key = postEvent("metrics-" + UUID.randomUUID());
        awaitDone(key, 1);
        HttpResponse<String> sweep = admin(base, "POST", "api/recovery/sweep", "{}");
        assertThat(sweep.statusCode()).as(sweep.body()).isEqualTo(200);
        String after = Await.until(WAIT, "the episode's duration to be timed", () -> {
            try {
                String text = scrape();
                return sample(text, "cyclium_episode_duration_seconds_count", "actor=\"it_actor\"", "status=\"done\"")
                        > sample(before, "cyclium_episode_duration_seconds_count", "actor=\"it_actor\"", "status=\"done\"")
                        ? text : null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        try {
            assertThat(sample(after, "cyclium_episode_started_total", "actor=\"it_actor\"", "expectation=\"echo\""))
                    .isGreaterThan(sample(before, "cyclium_episode_started_total", "actor=\"it_actor\"", "expectation=\"echo\""));
            assertThat(sample(after, "cyclium_episode_duration_seconds_sum", "actor=\"it_actor\"", "expectation=\"echo\""))
                    .as("seconds the runs took").isPositive();
            assertThat(after).as("queue depth and running, per actor").containsPattern("(?m)^cyclium_episode_queued\\{[^}]*actor=\"it_actor\"")
                    .containsPattern("(?m)^cyclium_episode_running\\{[^}]*actor=\"it_actor\"");
            assertThat(sample(after, "cyclium_recovery_sweep_count", "outcome=\"found\""))
                    .as("one event per sweep").isGreaterThan(sample(before, "cyclium_recovery_sweep_count", "outcome=\"found\""));
            assertThat(after).containsPattern("(?m)^cyclium_recovery_sweep_sum\\{[^}]*outcome=\"restarted\"");
            assertThat(sample(after, "cyclium_work_claims_total", "outcome=\"acquired\""))
                    .isGreaterThan(sample(before, "cyclium_work_claims_total", "outcome=\"acquired\""));
            assertThat(sample(after, "cyclium_work_claims_total", "outcome=\"completed\""))
                    .isGreaterThan(sample(before, "cyclium_work_claims_total", "outcome=\"completed\""));
            assertThat(after).containsPattern("(?m)^cyclium_finding_active\\{[^}]*severity=\"critical\"")
                    .containsPattern("(?m)^cyclium_trigger_requests_pending(\\{[^}]*\\})? ");
        } catch (AssertionError e) {
            System.out.println("[metrics] the scrape the assertion read:\n" + after.lines()
                    .filter(l -> l.contains("cyclium_") && !l.startsWith("#")).collect(java.util.stream.Collectors.joining("\n")));
            throw e;
        }
    }

    @Test
    void two_retention_requests_at_once_start_one_run_and_refuse_the_other_with_409() throws Exception {
        CompletableFuture<HttpResponse<String>> a = CompletableFuture.supplyAsync(() -> call("POST", "api/maintenance/retention"));
        CompletableFuture<HttpResponse<String>> b = CompletableFuture.supplyAsync(() -> call("POST", "api/maintenance/retention"));
        List<Integer> codes = List.of(a.get().statusCode(), b.get().statusCode());
        // Both may also succeed one after the other when the first run ends before the second asks;
        // never may both run at once: a second 202 must name a different run that started after the first ended.
        assertThat(codes).contains(202);
        if (codes.equals(List.of(202, 202))) {
            JsonObject first = awaitRun(json(a.get()).asJsonObject().getString("runId"));
            JsonObject second = awaitRun(json(b.get()).asJsonObject().getString("runId"));
            assertThat(first.getJsonObject("run").getString("status")).isEqualTo("completed");
            assertThat(second.getJsonObject("run").getString("status")).isEqualTo("completed");
            // the claim let them through one after the other: one run ended before the other started
            java.time.LocalDateTime s1 = java.time.LocalDateTime.parse(first.getJsonObject("run").getString("startedAt"));
            java.time.LocalDateTime e1 = java.time.LocalDateTime.parse(first.getJsonObject("run").getString("endedAt"));
            java.time.LocalDateTime s2 = java.time.LocalDateTime.parse(second.getJsonObject("run").getString("startedAt"));
            java.time.LocalDateTime e2 = java.time.LocalDateTime.parse(second.getJsonObject("run").getString("endedAt"));
            assertThat(!s2.isBefore(e1) || !s1.isBefore(e2)).as("runs " + s1 + ".." + e1 + " and " + s2 + ".." + e2 + " overlap").isTrue();
        } else {
            assertThat(codes).containsExactlyInAnyOrder(202, 409);
            HttpResponse<String> refused = a.get().statusCode() == 409 ? a.get() : b.get();
            assertThat(json(refused).asJsonObject().getString("error")).contains("a retention run is in progress on node");
        }
        assertThat(admin(base, "GET", "api/maintenance/retention", null).body()).contains("\"archiveAfter\":\"PT168H\"");
    }

    private HttpResponse<String> call(String method, String path) {
        try {
            return admin(base, method, path, null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void readiness_and_liveness_are_up_on_microprofile_health_and_on_the_api() throws Exception {
        HttpResponse<String> ready = HTTP.send(HttpRequest.newBuilder(server("health/ready")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("cyclium-ready").contains("UP: reachable").contains("not-draining");
        HttpResponse<String> live = HTTP.send(HttpRequest.newBuilder(server("health/live")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
        // the first heartbeat tick comes a third of a lease after boot: before it, the probe counts from boot
        assertThat(live.body()).contains("cyclium-live").containsAnyOf("last tick began", "no tick yet, started");

        HttpResponse<String> apiReady = send(base, "GET", "api/health?probe=ready", null, null);
        assertThat(apiReady.statusCode()).as(apiReady.body()).isEqualTo(200);
        JsonObject body = json(apiReady).asJsonObject();
        assertThat(body.getString("status")).isEqualTo("up");
        assertThat(body.getJsonArray("checks").stream().map(v -> v.asJsonObject().getString("name")))
                .containsExactlyInAnyOrder("not-draining", "database", "schema", "node-registered");
        assertThat(send(base, "GET", "api/health?probe=live", null, null).statusCode()).isEqualTo(200);
        assertThat(send(base, "GET", "api/health", null, null).body()).isEqualTo("{\"status\":\"up\"}");
        HttpResponse<String> bad = send(base, "GET", "api/health?probe=lively", null, null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).asJsonObject().getString("field")).isEqualTo("probe");
    }

    @Test
    void the_dashboard_shows_per_actor_figures_and_the_maintenance_page_its_runs_and_windows() throws Exception {
        String key = postEvent("ops-console-" + UUID.randomUUID());
        awaitDone(key, 1);
        HttpResponse<String> started = admin(base, "POST", "api/maintenance/retention", null);
        if (started.statusCode() == 202) {
            awaitRun(json(started).asJsonObject().getString("runId"));
        }
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new java.net.CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        URI login = URI.create(base.toString()).resolve("login.xhtml");
        HttpResponse<String> form = browser.send(HttpRequest.newBuilder(login).GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher state = VIEW_STATE.matcher(form.body());
        assertThat(state.find()).isTrue();
        String body = "login=login&login%3Ausername=admin&login%3Apassword=" + ApiCalls.enc(ConsoleUsers.adminPassword())
                + "&login%3Asubmit=Log+in&jakarta.faces.ViewState=" + ApiCalls.enc(state.group(1));
        HttpResponse<String> dashboard = browser.send(HttpRequest.newBuilder(login)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(dashboard.uri().getPath()).endsWith("/index.xhtml");
        assertThat(dashboard.body()).contains("Per actor, last hour").contains("it_actor").contains("successRate");

        // the protected Maintenance page opens through the console's own link (it carries the token)
        Matcher link = Pattern.compile("id=\"navMaintenance\"[^>]*href=\"([^\"]+)\"|href=\"([^\"]+)\"[^>]*id=\"navMaintenance\"")
                .matcher(dashboard.body());
        assertThat(link.find()).as("the Maintenance link in the navigation").isTrue();
        String href = (link.group(1) != null ? link.group(1) : link.group(2)).replace("&amp;", "&");
        HttpResponse<String> page = browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve(href)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.uri().getPath()).endsWith("/maintenance.xhtml");
        assertThat(page.body()).contains("Run retention now").contains("PT168H").contains("archive-episodes completed")
                .contains("arquillian-node-1");
    }

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");
}
