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
        assertThat(after).contains("# TYPE cyclium_episode_stored_total counter");
        assertThat(sample(after, "cyclium_episode_stored_total", "actor=\"it_actor\"", "expectation=\"echo\""))
                .isGreaterThan(sample(before, "cyclium_episode_stored_total", "actor=\"it_actor\"", "expectation=\"echo\""));
        assertThat(sample(after, "cyclium_event_received_total", "type=\"it.echo\""))
                .isGreaterThan(sample(before, "cyclium_event_received_total", "type=\"it.echo\""));

        // the same event again: deduplicated while the first episode holds the key
        assertThat(postEvent(eventId)).isEqualTo(key);
        Thread.sleep(1_500);
        assertThat(episodesWithKey(key)).hasSize(1);
        assertThat(sample(scrape(), "cyclium_episode_deduplicated_total", "actor=\"it_actor\"", "expectation=\"echo\""))
                .as("the repeat counted as deduplicated")
                .isGreaterThan(sample(before, "cyclium_episode_deduplicated_total", "actor=\"it_actor\"", "expectation=\"echo\""));

        // eight days old: past the default archive-after (P7D)
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "UPDATE cyclium_episodes SET finished_at = DATEADD('DAY', -8, finished_at) WHERE id = ?")) {
            s.setString(1, episode.getString("id"));
            assertThat(s.executeUpdate()).isOne();
        }
        // archived forty days ago: past the purge-after (P30D) the Arquillian node is configured with
        String purgedKey = postEvent("ops-purged-" + UUID.randomUUID());
        String purgedId = awaitDone(purgedKey, 1).getString("id");
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "UPDATE cyclium_episodes SET finished_at = DATEADD('DAY', -40, finished_at),"
                        + " archived_at = DATEADD('DAY', -40, finished_at) WHERE id = ?")) {
            s.setString(1, purgedId);
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
                .containsExactly("archive-episodes:completed", "purge-episodes:completed", "prune-claims:completed",
                        "prune-trigger-requests:completed", "prune-audit:completed", "prune-bulk-actions:completed");
        assertThat(run.getJsonArray("steps").getJsonObject(1).getJsonNumber("written").longValue()).isGreaterThanOrEqualTo(1);
        try (Connection c = MicroDeployment.database(); PreparedStatement s = c.prepareStatement(
                "SELECT (SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?) + (SELECT COUNT(*) FROM cyclium_episode_steps WHERE episode_id = ?)")) {
            s.setString(1, purgedId);
            s.setString(2, purgedId);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).as("the purged episode and its steps are gone").isZero();
            }
        }
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
        assertThat(sample(last, "cyclium_retention_purged_total")).as("what the purge step deleted is counted")
                .isGreaterThan(sample(before, "cyclium_retention_purged_total"));
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
            assertDurationTimerInSeconds(after);
            // the heartbeat ticks every lease/3 from boot: on a fresh deployment the first may still be due
            String ticked = Await.until(java.time.Duration.ofSeconds(120), "a heartbeat tick to be timed", () -> {
                try {
                    String text = scrape();
                    return sample(text, "cyclium_heartbeat_tick_seconds_count") > 0 ? text : null;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(sample(ticked, "cyclium_heartbeat_tick_seconds_max")).as("slowest recent tick, s").isBetween(1e-6, 60.0);
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

    /**
     * The episode duration timer's every figure in seconds, as Prometheus expects of a
     * {@code _seconds} metric. An echo episode takes milliseconds to a few seconds here, so the mean
     * (sum / count) and the max lie between a microsecond and a minute — in nanoseconds they would
     * be millions. Its distribution is Prometheus histogram buckets with {@code le} in seconds:
     * every bucket at or above the max holds every run, every bucket below it misses at least the
     * slowest. No quantiles: Payara prints a timer's quantiles in nanoseconds (the shipped
     * microprofile-config.properties turns them off for cyclium_ metrics).
     */
    private static void assertDurationTimerInSeconds(String scrape) {
        String[] labels = {"actor=\"it_actor\"", "expectation=\"echo\"", "status=\"done\""};
        assertThat(scrape).contains("# TYPE cyclium_episode_duration_seconds histogram")
                .doesNotContainPattern("(?m)^cyclium_episode_duration_seconds\\{[^}]*quantile=");
        double count = sample(scrape, "cyclium_episode_duration_seconds_count", labels);
        double mean = sample(scrape, "cyclium_episode_duration_seconds_sum", labels) / count;
        double max = sample(scrape, "cyclium_episode_duration_seconds_max", labels);
        assertThat(mean).as("mean episode duration, s").isBetween(1e-6, 60.0);
        assertThat(max).as("max episode duration, s").isBetween(1e-6, 60.0).isGreaterThanOrEqualTo(mean * 0.999);
        Matcher bucket = Pattern.compile("(?m)^cyclium_episode_duration_seconds_bucket\\{([^}]*)le=\"([^\"]+)\"[^}]*\\}\\s+(\\S+)")
                .matcher(scrape);
        int buckets = 0;
        while (bucket.find()) {
            String l = bucket.group(1);
            if (!(l.contains(labels[0]) && l.contains(labels[1]) && l.contains(labels[2])) || bucket.group(2).equals("+Inf")) {
                continue;
            }
            buckets++;
            double le = Double.parseDouble(bucket.group(2));
            double inBucket = Double.parseDouble(bucket.group(3));
            if (le >= max) {
                assertThat(inBucket).as("runs of at most " + le + " s (the slowest took " + max + " s)").isEqualTo(count);
            } else {
                assertThat(inBucket).as("runs of at most " + le + " s (the slowest took " + max + " s)").isLessThan(count);
            }
        }
        assertThat(buckets).as("duration buckets of it_actor/echo").isGreaterThanOrEqualTo(3);
        assertThat(sample(scrape, "cyclium_episode_duration_seconds_bucket", labels[0], labels[1], labels[2], "le=\"+Inf\""))
                .isEqualTo(count);
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
        // open to anyone: each check's result, not its detail (the node's name, the schema version)
        assertThat(ready.body()).contains("cyclium-ready").containsPattern("\"database\"\\s*:\\s*\"UP\"").contains("not-draining")
                .doesNotContain("reachable");
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
        assertThat(dashboard.body()).contains("Per actor, last hour").contains("it_actor").contains("successRate")
                .contains("Success rate").contains("p50 ms").contains("p95 ms");

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

        // Run retention now: the button's ajax request, as the browser sends it once the confirmation is accepted
        Matcher pageState = VIEW_STATE.matcher(page.body());
        assertThat(pageState.find()).isTrue();
        String click = "jakarta.faces.partial.ajax=true&jakarta.faces.source=maintenanceForm%3ArunNow"
                + "&jakarta.faces.partial.execute=maintenanceForm%3ArunNow&jakarta.faces.partial.render=maintenanceForm"
                + "&maintenanceForm%3ArunNow=maintenanceForm%3ArunNow&maintenanceForm=maintenanceForm"
                + "&jakarta.faces.ViewState=" + ApiCalls.enc(pageState.group(1));
        HttpResponse<String> clicked = browser.send(HttpRequest.newBuilder(page.uri())
                .header("Content-Type", "application/x-www-form-urlencoded").header("Faces-Request", "partial/ajax")
                .POST(HttpRequest.BodyPublishers.ofString(click)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(clicked.statusCode()).isEqualTo(200);
        Matcher startedRun = Pattern.compile("Retention run (manual:[0-9a-f-]+) started on arquillian-node-1").matcher(clicked.body());
        assertThat(startedRun.find()).as(clicked.body()).isTrue();
        JsonObject fromConsole = Await.until(WAIT, "the console's run " + startedRun.group(1) + " to end", () -> {
            try {
                for (JsonValue v : json(admin(base, "GET", "api/maintenance/executions?limit=20", null)).asJsonArray()) {
                    JsonObject run = v.asJsonObject().getJsonObject("run");
                    if (startedRun.group(1).equals(run.getString("runKey")) && !"running".equals(run.getString("status"))) {
                        return run;
                    }
                }
                return null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(fromConsole.getString("status")).isEqualTo("completed");
        assertThat(fromConsole.getString("trigger")).isEqualTo("manual");
        assertThat(fromConsole.getString("requestedBy")).isEqualTo("admin");
    }

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");
}
