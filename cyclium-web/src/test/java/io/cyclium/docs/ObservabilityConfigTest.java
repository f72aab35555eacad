package io.cyclium.docs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules in {@code server-config/observability/}
 * against the series a node exports, without a server: every PromQL expression may name only
 * series that exist and only labels those series carry.
 *
 * <p>The exported series are derived as {@link MetricsDocTest} derives the metric names (read
 * statically from the telemetry calls of the production sources), each turned into what both
 * servers write for its kind: Payara's MicroProfile Metrics 5.1 exporter (read from Payara
 * 6.2025.10's {@code OpenMetricsExporter}, seen in the scrapes of {@code OperationsIT}) and
 * WildFly's Micrometer Prometheus registry ({@code MicrometerMeters}, seen in {@code EarSmokeIT}):
 * a counter ({@code count}) as {@code cyclium_<name>_total}; a timer ({@code time}) as
 * {@code cyclium_<name>_seconds_count}, {@code _sum}, {@code _max} and {@code _bucket} (the
 * buckets the shipped microprofile-config.properties asks for, the same bounds on Micrometer); a
 * size ({@code record}) as {@code cyclium_<name>_count}, {@code _sum} and {@code _max}; a gauge as
 * {@code cyclium_<name>}. Not what one server alone writes: Payara's {@code _mean} series and its
 * {@code mp_scope} label are refused, a query on them would be empty on WildFly. No quantile
 * series: the shipped configuration turns them off (docs/metrics.md, "Units and Payara's quantiles").
 *
 * <p>Labels come from the tags docs/metrics.md lists in brackets after each series (the doc's
 * names are checked against the code by {@link MetricsDocTest}), plus {@code le} on a
 * {@code _bucket} series and the target labels Prometheus adds ({@code instance}, {@code job}).
 */
class ObservabilityConfigTest {

    static final String DASHBOARD = "server-config/observability/cyclium-dashboard.json";
    static final String ALERTS = "server-config/observability/cyclium-alerts.yml";

    /** Suffixes both servers write per facade method ({@code MetricsTelemetry}, {@code MicrometerMeters}). */
    private static final Map<String, List<String>> SUFFIXES = Map.of(
            "count", List.of("_total"),
            "time", List.of("_seconds_count", "_seconds_sum", "_seconds_max", "_seconds_bucket"),
            "record", List.of("_count", "_sum", "_max"),
            "gauge", List.of(""));
    /** Labels Prometheus itself attaches to every scraped sample. */
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
    /** Series Prometheus writes for each scrape target, not the node. */
    private static final Set<String> PROMETHEUS_SERIES = Set.of("up");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");
    private static final Set<String> FUNCTIONS = Set.of("sum", "max", "min", "avg", "count", "topk", "bottomk", "rate",
            "irate", "increase", "delta", "histogram_quantile", "clamp_min", "clamp_max", "abs", "absent", "vector",
            "scalar", "max_over_time", "min_over_time", "avg_over_time", "label_values");

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)?\\s*\\{([^}]*)\\}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\(\\s*(.+?)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)$");
    private static final Pattern DOC_CELL_PART = Pattern.compile("`(cyclium_[a-z0-9_]*[a-z0-9])`|\\[([^\\]]*)\\]|;");

    @Test
    void every_query_of_the_dashboard_names_series_and_labels_a_node_exports() {
        Exported exported = exported();
        Map<String, String> queries = dashboardQueries(Docs.read(Docs.doc(DASHBOARD)));
        assertThat(queries).as("queries found in " + DASHBOARD).hasSizeGreaterThan(20);
        List<String> problems = new ArrayList<>();
        Set<String> used = new TreeSet<>();
        queries.forEach((where, query) -> {
            Matcher lv = LABEL_VALUES.matcher(query.strip());
            if (lv.matches()) {
                Query q = Query.parse(lv.group(1));
                problems.addAll(exported.problems(where, q));
                used.addAll(q.series());
                if (q.series().stream().noneMatch(s -> exported.labelsOf(s).contains(lv.group(2)))) {
                    problems.add(where + ": label_values asks for label '" + lv.group(2) + "', which " + q.series() + " do not carry");
                }
                return;
            }
            Query q = Query.parse(query);
            problems.addAll(exported.problems(where, q));
            used.addAll(q.series());
        });
        assertThat(problems).as("queries of " + DASHBOARD + " that name a series or label no node exports").isEmpty();
        // what issue #36 asks the dashboard to show
        assertThat(used).contains("cyclium_episode_finished_total", "cyclium_episode_duration_seconds_bucket",
                "cyclium_episode_queued", "cyclium_episode_claim_lost_total", "cyclium_work_claims_total",
                "cyclium_recovery_total", "cyclium_retention_archived_total", "cyclium_retention_runs_total",
                "cyclium_workflow_instance_started_total", "cyclium_workflow_instance_failed_total");
    }

    @Test
    void every_alert_rule_names_series_a_node_exports_and_its_annotations_only_labels_it_keeps() {
        Exported exported = exported();
        List<Rule> rules = alertRules(Docs.read(Docs.doc(ALERTS)));
        assertThat(rules).as("alert rules in " + ALERTS).hasSizeGreaterThan(10);
        List<String> problems = new ArrayList<>();
        for (Rule rule : rules) {
            if (rule.expr() == null) {
                problems.add(rule.name() + ": no one-line expr");
                continue;
            }
            Query q = Query.parse(rule.expr());
            problems.addAll(exported.problems(rule.name(), q));
            Set<String> kept = q.grouping().isEmpty() ? exported.labelsOfAll(q.series()) : q.grouping();
            for (String label : rule.annotationLabels()) {
                if (!kept.contains(label)) {
                    problems.add(rule.name() + ": an annotation reads $labels." + label + ", which its expression "
                            + (q.grouping().isEmpty() ? "does not carry" : "aggregates away (by " + q.grouping() + ")"));
                }
            }
        }
        assertThat(problems).as("rules of " + ALERTS + " that name a series or label no node exports").isEmpty();
    }

    @Test
    void the_check_refuses_a_misspelt_series_a_wrong_suffix_and_an_unknown_label() {
        Exported exported = exported();
        assertThat(exported.problems("ok", Query.parse(
                "histogram_quantile(0.95, sum by (actor, le) (rate(cyclium_episode_duration_seconds_bucket{actor=~\"$actor\"}[$__rate_interval])))")))
                .isEmpty();
        assertThat(exported.problems("misspelt", Query.parse("sum(rate(cyclium_episode_finishd_total[5m]))")))
                .singleElement().asString().contains("cyclium_episode_finishd_total");
        assertThat(exported.problems("counter without _total", Query.parse("rate(cyclium_episode_finished[5m])"))).hasSize(1);
        assertThat(exported.problems("gauge as a counter", Query.parse("cyclium_episode_queued_total"))).hasSize(1);
        assertThat(exported.problems("timer without its unit", Query.parse("cyclium_episode_duration_count"))).hasSize(1);
        assertThat(exported.problems("quantiles are off", Query.parse("cyclium_episode_duration_seconds{quantile=\"0.95\"}"))).isNotEmpty();
        assertThat(exported.problems("Payara only", Query.parse("cyclium_episode_duration_seconds_mean"))).hasSize(1);
        assertThat(exported.problems("Payara only", Query.parse("cyclium_episode_queued{mp_scope=\"application\"}"))).hasSize(1);
        assertThat(exported.problems("not our series", Query.parse("rate(cylcium_episode_finished_total[5m])"))).hasSize(1);
        assertThat(exported.problems("unknown label", Query.parse("cyclium_episode_finished_total{actr=\"a\"}")))
                .singleElement().asString().contains("actr");
        assertThat(exported.problems("unknown grouping", Query.parse("sum by (stauts) (cyclium_episode_finished_total)")))
                .singleElement().asString().contains("stauts");
        assertThat(exported.problems("le off a bucket", Query.parse("cyclium_episode_finished_total{le=\"1\"}"))).hasSize(1);
        assertThat(exported.problems("unknown function", Query.parse("histgram_quantile(0.5, cyclium_episode_duration_seconds_bucket)")))
                .hasSize(1);
    }

    @Test
    void no_metric_name_ends_in_a_suffix_prometheus_reserves() {
        // Micrometer's Prometheus registry (WildFly) strips these from a name before adding its own
        // suffix (prometheus-metrics' PrometheusNaming): a counter episode_created became
        // cyclium_episode_total there while Payara wrote cyclium_episode_created_total.
        MetricsDocTest.Names code = MetricsDocTest.namesInCode();
        Set<String> reserved = new TreeSet<>();
        code.names().forEach((name, file) -> {
            if (name.matches(".*_(total|created|bucket|info)")) {
                reserved.add(name + " (" + file + ")");
            }
        });
        assertThat(reserved).as("metric names that would be renamed on WildFly").isEmpty();
    }

    /** The series a node exports, each with the labels it carries. */
    record Exported(Map<String, Set<String>> labels) {

        Set<String> labelsOf(String series) {
            Set<String> out = new TreeSet<>(TARGET_LABELS);
            out.addAll(labels.getOrDefault(series, Set.of()));
            return out;
        }

        Set<String> labelsOfAll(Set<String> series) {
            Set<String> out = new TreeSet<>(TARGET_LABELS);
            series.forEach(s -> out.addAll(labelsOf(s)));
            return out;
        }

        List<String> problems(String where, Query q) {
            List<String> problems = new ArrayList<>();
            q.functions().stream().filter(f -> !FUNCTIONS.contains(f))
                    .forEach(f -> problems.add(where + ": unknown function " + f + "() in " + q.text()));
            for (String s : q.series()) {
                if (!labels.containsKey(s)) {
                    problems.add(where + ": series " + s + " is not exported by a node (" + q.text() + ")");
                }
            }
            for (Map.Entry<String, Set<String>> selector : q.selectors().entrySet()) {
                String series = selector.getKey().substring(selector.getKey().indexOf('#') + 1);
                if (!labels.containsKey(series)) {
                    continue; // reported above
                }
                for (String label : selector.getValue()) {
                    if (!labelsOf(series).contains(label)) {
                        problems.add(where + ": " + series + " has no label " + label + " (it has " + labelsOf(series) + ")");
                    }
                }
            }
            Set<String> all = labelsOfAll(q.series());
            for (String label : q.grouping()) {
                if (!all.contains(label)) {
                    problems.add(where + ": grouping by " + label + ", which none of " + q.series() + " carries");
                }
            }
            return problems;
        }
    }

    static Exported exported() {
        MetricsDocTest.Names code = MetricsDocTest.namesInCode();
        Map<String, Set<String>> tags = documentedTags(Docs.read(Docs.doc(MetricsDocTest.DOC)));
        Map<String, Set<String>> labels = new TreeMap<>();
        code.names().keySet().forEach(name -> {
            Set<String> kinds = code.kinds().get(name);
            for (String kind : kinds) {
                for (String suffix : SUFFIXES.get(kind)) {
                    String series = "cyclium_" + name + suffix;
                    Set<String> l = labels.computeIfAbsent(series, k -> new TreeSet<>());
                    l.addAll(tags.getOrDefault("cyclium_" + name, Set.of()));
                    if (suffix.endsWith("_bucket")) {
                        l.add("le");
                    }
                }
            }
        });
        // a name built at run time ("finding_" + kind): the doc names each series, the code its prefix and kind
        for (String prefix : code.prefixes().keySet()) {
            for (String documented : tags.keySet()) {
                if (documented.startsWith("cyclium_" + prefix) && !code.names().containsKey(documented.substring(8))) {
                    for (String kind : code.kinds().get(prefix)) {
                        for (String suffix : SUFFIXES.get(kind)) {
                            labels.computeIfAbsent(documented + suffix, k -> new TreeSet<>()).addAll(tags.get(documented));
                        }
                    }
                }
            }
        }
        PROMETHEUS_SERIES.forEach(s -> labels.put(s, new TreeSet<>()));
        assertThat(labels).as("exported series").containsKeys("cyclium_work_claims_total", "cyclium_episode_duration_seconds_bucket",
                "cyclium_recovery_sweep_count", "cyclium_episode_queued", "cyclium_finding_raised_total");
        return new Exported(labels);
    }

    /**
     * The tags docs/metrics.md lists per series: in a table's first cell, a bracket names the tags of
     * every series since the previous bracket or semicolon ({@code `a`, `b` [actor]; `c`}); in a
     * bracket, {@code outcome: x, y} is one tag and its values.
     */
    static Map<String, Set<String>> documentedTags(String markdown) {
        Map<String, Set<String>> tags = new TreeMap<>();
        for (String cell : Docs.firstCells(markdown)) {
            List<String> pending = new ArrayList<>();
            Matcher m = DOC_CELL_PART.matcher(cell);
            while (m.find()) {
                if (m.group(1) != null) {
                    pending.add(m.group(1));
                    tags.putIfAbsent(m.group(1), new TreeSet<>());
                } else if (m.group(2) != null) {
                    String inside = m.group(2).replaceAll(":[^\\]]*$", "");
                    Matcher id = Pattern.compile("[a-z_][a-z0-9_]*").matcher(inside);
                    Set<String> names = new TreeSet<>();
                    while (id.find()) {
                        names.add(id.group());
                    }
                    pending.forEach(p -> tags.get(p).addAll(names));
                    pending.clear();
                } else {
                    pending.clear();
                }
            }
        }
        return tags;
    }

    /** A PromQL expression taken apart: series named, labels per selector, grouping labels, functions. */
    record Query(String text, Set<String> series, Map<String, Set<String>> selectors, Set<String> grouping,
            Set<String> functions) {

        static Query parse(String promql) {
            Set<String> series = new TreeSet<>();
            Map<String, Set<String>> selectors = new LinkedHashMap<>();
            Set<String> grouping = new TreeSet<>();
            Set<String> functions = new TreeSet<>();
            // label values may hold anything (template variables, regexes): read label names first, then drop them
            String s = promql;
            StringBuilder rest = new StringBuilder();
            Matcher sel = SELECTOR.matcher(s);
            int last = 0;
            int n = 0;
            while (sel.find()) {
                Set<String> names = new TreeSet<>();
                Matcher label = MATCHER.matcher(STRING.matcher(sel.group(2)).replaceAll("\"\""));
                while (label.find()) {
                    names.add(label.group(1));
                }
                String metric = sel.group(1) == null ? "" : sel.group(1);
                if (metric.isEmpty() || KEYWORDS.contains(metric)) {
                    metric = "<a selector without a metric name>";
                    series.add(metric);
                }
                selectors.put((n++) + "#" + metric, names);
                rest.append(s, last, sel.start()).append(' ').append(sel.group(1) == null ? "" : sel.group(1)).append(' ');
                last = sel.end();
            }
            rest.append(s.substring(last));
            s = STRING.matcher(rest).replaceAll(" ");
            s = RANGE.matcher(s).replaceAll(" ");
            Matcher g = GROUPING.matcher(s);
            while (g.find()) {
                for (String l : g.group(1).split(",")) {
                    if (!l.isBlank()) {
                        grouping.add(l.strip());
                    }
                }
            }
            s = GROUPING.matcher(s).replaceAll(" ");
            Matcher id = IDENTIFIER.matcher(s);
            while (id.find()) {
                String word = id.group(1);
                if (id.group(2) != null) {
                    functions.add(word);
                } else if (!KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                    series.add(word);
                }
            }
            return new Query(promql, series, selectors, grouping, functions);
        }
    }

    /** Every target's {@code expr} and every query variable's query, keyed by where it is. */
    static Map<String, String> dashboardQueries(String json) {
        Map<String, String> out = new LinkedHashMap<>();
        try (JsonReader r = Json.createReader(new StringReader(json))) {
            JsonObject dashboard = r.readObject();
            collectPanels(dashboard.getJsonArray("panels"), out);
            JsonObject templating = dashboard.getJsonObject("templating");
            if (templating != null) {
                for (JsonValue v : templating.getJsonArray("list")) {
                    JsonObject var = v.asJsonObject();
                    if (!"query".equals(var.getString("type", ""))) {
                        continue;
                    }
                    JsonValue q = var.get("query");
                    String query = q instanceof JsonString js ? js.getString() : q.asJsonObject().getString("query");
                    out.put("variable " + var.getString("name"), query);
                }
            }
        }
        return out;
    }

    private static void collectPanels(JsonArray panels, Map<String, String> out) {
        if (panels == null) {
            return;
        }
        for (JsonValue v : panels) {
            JsonObject panel = v.asJsonObject();
            collectPanels(panel.getJsonArray("panels"), out);
            JsonArray targets = panel.getJsonArray("targets");
            if (targets == null) {
                continue;
            }
            for (JsonValue t : targets) {
                JsonObject target = t.asJsonObject();
                out.put("panel '" + panel.getString("title", "?") + "' " + target.getString("refId", "?"), target.getString("expr"));
            }
        }
    }

    record Rule(String name, String expr, Set<String> annotationLabels) {
    }

    /**
     * The alerting rules of a Prometheus rules file, read line by line (the file keeps each
     * {@code expr} on one line; a block scalar reads as no expression and fails the test).
     */
    static List<Rule> alertRules(String yaml) {
        List<Rule> rules = new ArrayList<>();
        Pattern alert = Pattern.compile("^\\s*-\\s*alert:\\s*(\\S+)\\s*$");
        Pattern expr = Pattern.compile("^\\s*expr:\\s*(.*?)\\s*$");
        Pattern labelRef = Pattern.compile("\\$labels\\.([a-zA-Z_][a-zA-Z0-9_]*)");
        String name = null;
        String ex = null;
        Set<String> refs = new TreeSet<>();
        for (String line : (yaml + "\n- alert: <end>").split("\n")) {
            Matcher a = alert.matcher(line);
            if (a.matches() || line.matches("^\\s*-\\s*name:.*")) {
                if (name != null) {
                    rules.add(new Rule(name, ex, refs));
                }
                name = a.matches() ? a.group(1) : null;
                ex = null;
                refs = new TreeSet<>();
                continue;
            }
            Matcher e = expr.matcher(line);
            if (e.matches() && !e.group(1).isEmpty() && !e.group(1).startsWith("|") && !e.group(1).startsWith(">")) {
                ex = e.group(1);
            }
            Matcher ref = labelRef.matcher(line);
            while (ref.find()) {
                refs.add(ref.group(1));
            }
        }
        rules.removeIf(r -> r.name().equals("<end>"));
        return rules;
    }
}
