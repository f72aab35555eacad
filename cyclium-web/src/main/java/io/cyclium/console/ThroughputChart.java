package io.cyclium.console;

import io.cyclium.store.Jsons;
import io.cyclium.operations.EpisodeThroughput;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.time.format.DateTimeFormatter;

/**
 * The Chart.js configuration {@code <p:chart>} renders for the dashboard: a line per series
 * (episodes started, failures) over the window's minutes, labelled HH:mm UTC. Built with JSON-P,
 * so every value is escaped; nothing in it comes from user input.
 */
final class ThroughputChart {

    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("HH:mm");

    private ThroughputChart() {
    }

    static String config(EpisodeThroughput.Window window) {
        JsonArrayBuilder labels = Jsons.array();
        JsonArrayBuilder started = Jsons.array();
        JsonArrayBuilder failed = Jsons.array();
        for (EpisodeThroughput.Minute m : window.minutes()) {
            labels.add(MINUTE.format(m.minute()));
            started.add(m.started());
            failed.add(m.failed());
        }
        JsonObject config = Jsons.object()
                .add("type", "line")
                .add("data", Jsons.object()
                        .add("labels", labels)
                        .add("datasets", Jsons.array()
                                .add(series("episodes started", started, "#0969da"))
                                .add(series("failures", failed, "#cf222e"))))
                .add("options", Jsons.object()
                        .add("animation", false)
                        .add("maintainAspectRatio", false)
                        .add("scales", Jsons.object()
                                .add("x", Jsons.object().add("title", title("minute (UTC, database clock)")))
                                .add("y", Jsons.object().add("beginAtZero", true)
                                        .add("ticks", Jsons.object().add("precision", 0))
                                        .add("title", title("per minute")))))
                .build();
        return config.toString();
    }

    private static JsonObject series(String label, JsonArrayBuilder data, String colour) {
        return Jsons.object().add("label", label).add("data", data).add("borderColor", colour)
                .add("backgroundColor", colour).add("pointRadius", 0).add("borderWidth", 2).add("tension", 0.2).build();
    }

    private static JsonObject title(String text) {
        return Jsons.object().add("display", true).add("text", text).build();
    }
}
