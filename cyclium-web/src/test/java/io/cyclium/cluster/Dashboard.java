package io.cyclium.cluster;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The panels of a Grafana dashboard JSON as Prometheus queries: rows, panels in order, each
 * panel's targets ({@code expr}, {@code legendFormat}), and the query variables
 * ({@code label_values(series, label)}), which every query reads as "all" ({@code .*}).
 */
record Dashboard(List<Panel> panels, Map<String, String> variables, List<String> variableNames) {

    record Panel(String row, String title, List<Target> targets) {
    }

    record Target(String panel, String refId, String expr, String legend, List<String> variableNames) {

        /** "panel title/refId". */
        String key() {
            return panel + "/" + refId;
        }

        /** The expression as Grafana sends it with every variable on "All" and this rate interval. */
        String promql(String rateInterval) {
            String q = expr.replace("$__rate_interval", rateInterval);
            for (String name : variableNames) {
                q = q.replace("${" + name + "}", ".*").replace("$" + name, ".*");
            }
            return q;
        }
    }

    List<Target> targets() {
        return panels.stream().flatMap(p -> p.targets().stream()).toList();
    }

    static Dashboard read(Path json) {
        try (JsonReader r = Json.createReader(new StringReader(Files.readString(json)))) {
            JsonObject dashboard = r.readObject();
            Map<String, String> variables = new LinkedHashMap<>();
            List<String> names = new ArrayList<>();
            for (JsonValue v : dashboard.getJsonObject("templating").getJsonArray("list")) {
                JsonObject var = v.asJsonObject();
                if (!"query".equals(var.getString("type", ""))) {
                    continue;
                }
                names.add(var.getString("name"));
                JsonValue q = var.get("query");
                String query = q instanceof JsonString js ? js.getString() : q.asJsonObject().getString("query");
                Map.Entry<String, String> seriesAndLabel = DashboardQueriesIT.labelValues(query);
                variables.put(seriesAndLabel.getKey(), seriesAndLabel.getValue());
            }
            List<Panel> panels = new ArrayList<>();
            String row = "";
            for (JsonValue v : dashboard.getJsonArray("panels")) {
                JsonObject panel = v.asJsonObject();
                if ("row".equals(panel.getString("type", ""))) {
                    row = panel.getString("title", "");
                    continue;
                }
                String title = panel.getString("title", "?");
                List<Target> targets = new ArrayList<>();
                for (JsonValue t : panel.getJsonArray("targets")) {
                    JsonObject target = t.asJsonObject();
                    targets.add(new Target(title, target.getString("refId", "?"), target.getString("expr"),
                            target.getString("legendFormat", ""), names));
                }
                panels.add(new Panel(row, title, targets));
            }
            return new Dashboard(panels, variables, names);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
