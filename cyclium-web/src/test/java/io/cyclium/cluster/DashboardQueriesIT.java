package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped dashboard and alert rules (server-config/observability/) against a real Prometheus
 * scraping a real Payara Micro node with the demo on, driven for a few seconds: events, a workflow
 * instance, a retention run. {@code promtool check rules} accepts the rules file; Prometheus loads
 * it and evaluates every rule without error, and no alert fires on the healthy node; every query
 * of every panel and variable evaluates without error, and every one has data except those that
 * count what a healthy node does not do (failures, refusals, lost leases: {@link #NOTHING_TO_COUNT}).
 * The panels are then drawn from those results ({@link DashboardPicture}), Chromium's screenshot
 * of them goes to {@code target/observability/cyclium-dashboard.png} (docs/observability.md).
 */
class DashboardQueriesIT {

    static final Path CONFIG = Path.of(System.getProperty("cyclium.config.dir", "../server-config")).toAbsolutePath().normalize();
    static final Path DASHBOARD = CONFIG.resolve("observability/cyclium-dashboard.json");
    static final Path ALERTS = CONFIG.resolve("observability/cyclium-alerts.yml");
    /** Grafana's {@code $__rate_interval} for a 1 s scrape and the 1 s step here would be 4 s; 15 s draws smoother lines. */
    static final String RATE_INTERVAL = "15s";

    /**
     * Queries (panel title and refId) that have nothing to count on a healthy node in a minute:
     * each counts a failure, a refusal or a lost lease. Every other query must return data.
     */
    static final Set<String> NOTHING_TO_COUNT = Set.of(
            "Triggers refused/A", "Triggers refused/B", "Triggers refused/C", "Triggers refused/D", "Triggers refused/E",
            "Events received and refused/B",
            "Leases lost/A", "Leases lost/B", "Leases lost/C",
            "Recovery: orphans restarted and failed/A", "Recovery: orphans restarted and failed/B",
            "Recovery: orphans restarted and failed/C",
            "Heartbeat/B", "Heartbeat/C",
            // a fresh database has no rows old enough to archive, purge or prune
            "Rows archived, purged and pruned/A", "Rows archived, purged and pruned/B", "Rows archived, purged and pruned/C",
            "Retention runs and failures/B", "Retention runs and failures/C",
            "Workflow instances started and ended/C", "Workflow instances started and ended/D",
            "Workflow background failures/A", "Workflow background failures/B", "Workflow background failures/C",
            "Workflow background failures/D", "Workflow background failures/E",
            "Workflow steps retried/A",
            "Outputs delivered and failed/B");

    @Test
    void a_real_prometheus_scraping_a_node_evaluates_every_dashboard_query_and_alert_rule() throws Exception {
        promtoolAcceptsTheRules();
        Dashboard dashboard = Dashboard.read(DASHBOARD);
        Path dir = Path.of("target", "observability", "prometheus-" + UUID.randomUUID().toString().substring(0, 6));
        try (ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                .env("CYCLIUM_DEMO_ENABLED", "true")
                .node("node-a")
                .start();
             PrometheusServer prometheus = PrometheusServer.start(dir, cluster.nodes(), ALERTS)) {
            ClusterNode node = cluster.node("node-a");
            Instant from = Instant.now();
            System.out.println("[dashboard] node and prometheus up");
            overTheLimit(cluster.database(), "batch-worker");
            drive(node);

            System.out.println("[dashboard] driven (" + Duration.between(from, Instant.now()).toSeconds() + " s)");
            // every panel query with data, except what a healthy node has nothing of
            Map<String, JsonObject> results = new LinkedHashMap<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> missing;
            do {
                Thread.sleep(2_000);
                Instant to = Instant.now();
                for (Dashboard.Target t : dashboard.targets()) {
                    results.put(t.key(), prometheus.queryRange(t.promql(RATE_INTERVAL), from.minusSeconds(5), to, Duration.ofSeconds(1)));
                }
                missing = dashboard.targets().stream().map(Dashboard.Target::key)
                        .filter(k -> !NOTHING_TO_COUNT.contains(k) && !hasData(results.get(k))).toList();
            } while (!missing.isEmpty() && System.nanoTime() < deadline);

            Map<String, String> errors = new TreeMap<>();
            results.forEach((key, r) -> {
                if (!"success".equals(r.getString("status", ""))) {
                    errors.put(key, r.toString());
                }
            });
            assertThat(errors).as("panel queries Prometheus refused").isEmpty();
            for (String key : missing) {
                System.out.println("[dashboard] no data: " + key + " = " + results.get(key));
            }
            System.out.println("[dashboard] cyclium series scraped: " + prometheus.api("label/__name__/values").getJsonArray("data"));
            assertThat(missing).as("panel queries without data after a minute of load (" + prometheus.tail() + ")").isEmpty();
            List<String> counted = NOTHING_TO_COUNT.stream().filter(k -> hasData(results.get(k))).sorted().toList();
            System.out.println("[dashboard] queries with nothing to count on a healthy node that had data anyway: " + counted);
            assertThat(NOTHING_TO_COUNT).as("every exempted query is a panel query of the dashboard")
                    .allMatch(k -> results.containsKey(k));

            for (Map.Entry<String, String> variable : dashboard.variables().entrySet()) {
                JsonObject values = prometheus.api("label/" + variable.getValue() + "/values", "match[]", variable.getKey());
                assertThat(values.getString("status")).as(variable.toString()).isEqualTo("success");
                assertThat(values.getJsonArray("data")).as("values of " + variable).isNotEmpty();
            }

            rulesEvaluateWithoutErrorAndNoneFires(prometheus);

            Path png = Path.of("target", "observability", "cyclium-dashboard.png");
            DashboardPicture.render(dashboard, results, dir.resolve("dashboard.html"), png);
            assertThat(Files.size(png)).as(png.toString()).isGreaterThan(20_000);
        }
    }

    /** What a node does in the first minute of a quick start: events, a workflow instance, a retention run. */
    private static void drive(ClusterNode node) throws InterruptedException {
        String first = null;
        for (int i = 0; i < 12; i++) {
            HttpReply r = node.post("/events", "{\"type\":\"resource.updated\",\"id\":\"dash-" + i
                    + "\",\"payload\":{\"resource\":\"" + List.of("batch-worker", "db-primary", "api-gateway", "cache").get(i % 4) + "\"}}");
            assertThat(r.status()).as(r.toString()).isEqualTo(202);
            if (i == 2) {
                first = startReview(node, "dash-1");
            }
            if (i == 4) {
                HttpReply retention = node.post("/maintenance/retention", "{}");
                assertThat(retention.status()).as(retention.toString()).isEqualTo(202);
            }
            Thread.sleep(1_000);
        }
        approveTheAdvice(node);
        // A timer's series appear with its first record, so Prometheus sees no increase in the
        // first instance's duration (rate() has nothing to compare): a second one shows the p95.
        awaitCompleted(node, first);
        startReview(node, "dash-2");
    }

    private static void awaitCompleted(ClusterNode node, String instance) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String status = "";
        while (System.nanoTime() < deadline) {
            status = node.get("/workflow-instances/" + instance).jsonObject().getJsonObject("instance").getString("status", "");
            if (status.equals("completed")) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("workflow instance " + instance + " not completed within 30 s: " + status);
    }

    /**
     * The demo seeds batch-worker over its limit, but its load moves a random resource by up to 25
     * every 20 s: well over, the resource stays over during the test, so the monitor raises a finding
     * and the advisor proposes a plan to approve.
     */
    private static void overTheLimit(HarnessDatabase db, String resource) throws java.sql.SQLException {
        try (java.sql.Connection c = db.connect();
             java.sql.PreparedStatement s = c.prepareStatement(
                     "UPDATE cyclium_demo_resources SET usage_value = limit_value + 60 WHERE resource_id = ?")) {
            s.setString(1, resource);
            assertThat(s.executeUpdate()).as("the demo's seeded " + resource).isEqualTo(1);
        }
    }

    /** Starts the demo review of the cache alone (collect, analyse-cache): it completes in seconds. */
    private static String startReview(ClusterNode node, String subject) {
        HttpReply flow = node.post("/workflows/resource_review/instances",
                "{\"outcome\":\"analyse-cache\",\"subject\":\"" + subject + "\"}");
        assertThat(flow.status()).as(flow.toString()).isEqualTo(201);
        return flow.jsonObject().getString("id");
    }

    private static final Pattern PLAN_HASH = Pattern.compile("\\\\?\"planHash\\\\?\"\\s*:\\s*\\\\?\"([0-9a-f]{64})");

    /**
     * An operator's approval of the demo advisor's plans (a seeded resource is over its limit): their
     * outputs are delivered, which the outputs panel counts.
     */
    private static void approveTheAdvice(ClusterNode node) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        int approved = 0;
        while (approved == 0 && System.nanoTime() < deadline) {
            for (JsonValue e : node.get("/episodes?actor=resource_advisor&status=blocked").jsonArray()) {
                String id = e.asJsonObject().getString("id");
                Matcher hash = PLAN_HASH.matcher(node.get("/episodes/" + id).body());
                if (hash.find()) {
                    HttpReply r = node.post("/episodes/" + id + "/approve", "{\"planHash\":\"" + hash.group(1) + "\"}");
                    assertThat(r.status()).as(r.toString()).isBetween(200, 299);
                    approved++;
                }
            }
            Thread.sleep(1_000);
        }
        assertThat(approved).as("demo advice plans approved").isPositive();
    }

    private static void promtoolAcceptsTheRules() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(PrometheusServer.binary("promtool").toString(), "check", "rules", ALERTS.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("promtool check rules: " + out).isZero();
        assertThat(out).contains("SUCCESS: " + alertCount() + " rules found");
    }

    private static void rulesEvaluateWithoutErrorAndNoneFires(PrometheusServer prometheus) throws InterruptedException {
        long alerts = alertCount();
        List<JsonObject> rules = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        do {
            rules.clear();
            for (JsonValue group : prometheus.api("rules").getJsonObject("data").getJsonArray("groups")) {
                group.asJsonObject().getJsonArray("rules").forEach(r -> rules.add(r.asJsonObject()));
            }
            if (rules.size() == alerts && rules.stream().noneMatch(r -> r.getString("health").equals("unknown"))) {
                break;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        assertThat(rules).as("rules Prometheus loaded from " + ALERTS).hasSize((int) alerts);
        assertThat(rules).as("rules not evaluated cleanly").filteredOn(r -> !r.getString("health").equals("ok")
                || !r.getString("lastError", "").isEmpty()).isEmpty();
        for (JsonObject rule : rules) {
            JsonObject r = prometheus.query(rule.getString("query"));
            assertThat(r.getString("status")).as(rule.getString("name") + ": " + r).isEqualTo("success");
        }
        assertThat(rules).as("alerts pending or firing on a healthy node")
                .filteredOn(r -> !r.getString("state", "inactive").equals("inactive")).isEmpty();
    }

    private static long alertCount() {
        try {
            return Files.readAllLines(ALERTS).stream().filter(l -> l.strip().startsWith("- alert:")).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A range query's answer holds at least one sample that is a number (histogram_quantile of nothing is NaN). */
    static boolean hasData(JsonObject answer) {
        if (answer == null || !"success".equals(answer.getString("status", ""))) {
            return false;
        }
        for (JsonValue series : answer.getJsonObject("data").getJsonArray("result")) {
            for (JsonValue point : series.asJsonObject().getJsonArray("values")) {
                String v = point.asJsonArray().getString(1);
                if (!v.equals("NaN") && !v.contains("Inf")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Grafana's {@code label_values(series, label)}: the series and the label. */
    static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\(\\s*(.+?)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)$");

    static Map.Entry<String, String> labelValues(String query) {
        Matcher m = LABEL_VALUES.matcher(query.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("a variable query that is not label_values(series, label): " + query);
        }
        return Map.entry(m.group(1), m.group(2));
    }
}
