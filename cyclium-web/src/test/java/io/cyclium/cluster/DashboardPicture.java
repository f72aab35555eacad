package io.cyclium.cluster;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A picture of the dashboard drawn from real Prometheus answers: each panel of the dashboard JSON,
 * in its rows and order, as a line chart of its queries' range results (legend from each target's
 * {@code legendFormat}), written as one HTML page of inline SVG and photographed by headless
 * Chromium. This is not Grafana: the layout is a plain grid, the drawing is ours; the numbers and
 * series are Prometheus'.
 */
final class DashboardPicture {

    private static final String[] COLOURS = {"#73bf69", "#f2cc0c", "#5794f2", "#ff780a", "#b877d9", "#f2495c", "#8ab8ff", "#96d98d"};
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\}\\}");
    private static final int WIDTH = 440;
    private static final int HEIGHT = 150;

    private DashboardPicture() {
    }

    /** Writes the page to {@code html} and Chromium's screenshot of it to {@code png}. */
    static void render(Dashboard dashboard, Map<String, JsonObject> results, Path html, Path png) {
        StringBuilder page = new StringBuilder("""
                <!doctype html><html><head><meta charset="utf-8"><style>
                body{background:#111217;color:#ccccdc;font:12px sans-serif;margin:12px;width:1380px;overflow:hidden}
                h1{font-size:16px;margin:4px 0 8px} h2{font-size:14px;margin:14px 0 6px;border-bottom:1px solid #333}
                .grid{display:grid;grid-template-columns:repeat(3,452px);gap:8px}
                .panel{background:#181b1f;border:1px solid #2c3235;border-radius:3px;padding:6px}
                .title{font-weight:bold;margin-bottom:4px} .legend{font-size:11px;line-height:14px}
                .nodata{fill:#8e8e8e;font-size:13px} .axis{fill:#8e8e8e;font-size:10px}
                </style></head><body>
                """);
        page.append("<h1>Cyclium (server-config/observability/cyclium-dashboard.json) — drawn from Prometheus query_range answers</h1>");
        // one time axis for every panel: the span of every sample of every answer
        double[] span = {Double.MAX_VALUE, -Double.MAX_VALUE};
        results.values().forEach(answer -> answer.getJsonObject("data").getJsonArray("result").forEach(series ->
                series.asJsonObject().getJsonArray("values").forEach(p -> {
                    double t = p.asJsonArray().getJsonNumber(0).doubleValue();
                    span[0] = Math.min(span[0], t);
                    span[1] = Math.max(span[1], t);
                })));
        String row = null;
        for (Dashboard.Panel panel : dashboard.panels()) {
            if (!panel.row().equals(row)) {
                page.append(row == null ? "" : "</div>").append("<h2>").append(escape(panel.row())).append("</h2><div class=\"grid\">");
                row = panel.row();
            }
            page.append(panelHtml(panel, results, span[0], span[1]));
        }
        page.append("</div></body></html>");
        try {
            Files.createDirectories(html.toAbsolutePath().getParent());
            Files.writeString(html, page);
            Files.createDirectories(png.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        screenshot(html, png);
    }

    private static String panelHtml(Dashboard.Panel panel, Map<String, JsonObject> results, double t0, double t1) {
        List<Line> lines = new ArrayList<>();
        for (Dashboard.Target t : panel.targets()) {
            JsonObject answer = results.get(t.key());
            for (JsonValue s : answer.getJsonObject("data").getJsonArray("result")) {
                JsonObject series = s.asJsonObject();
                List<double[]> points = new ArrayList<>();
                for (JsonValue p : series.getJsonArray("values")) {
                    double v = Double.parseDouble(p.asJsonArray().getString(1));
                    if (Double.isFinite(v)) {
                        points.add(new double[] {p.asJsonArray().getJsonNumber(0).doubleValue(), v});
                    }
                }
                if (!points.isEmpty()) {
                    lines.add(new Line(legend(t.legend(), series.getJsonObject("metric")), points));
                }
            }
        }
        StringBuilder svg = new StringBuilder("<svg width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\">");
        if (lines.isEmpty()) {
            svg.append("<text class=\"nodata\" x=\"").append(WIDTH / 2 - 25).append("\" y=\"").append(HEIGHT / 2).append("\">No data</text>");
        } else {
            double max = lines.stream().flatMap(l -> l.points().stream()).mapToDouble(p -> p[1]).max().orElse(1);
            max = max <= 0 ? 1 : max;
            int left = 40;
            svg.append("<text class=\"axis\" x=\"0\" y=\"10\">").append(number(max)).append("</text>")
                    .append("<text class=\"axis\" x=\"0\" y=\"").append(HEIGHT - 14).append("\">0</text>")
                    .append("<text class=\"axis\" x=\"").append(left).append("\" y=\"").append(HEIGHT - 2).append("\">-")
                    .append(Duration.ofSeconds((long) (t1 - t0)).toSeconds()).append(" s</text>")
                    .append("<text class=\"axis\" x=\"").append(WIDTH - 24).append("\" y=\"").append(HEIGHT - 2).append("\">now</text>")
                    .append("<line x1=\"").append(left).append("\" y1=\"").append(HEIGHT - 18).append("\" x2=\"").append(WIDTH)
                    .append("\" y2=\"").append(HEIGHT - 18).append("\" stroke=\"#333\"/>");
            for (int i = 0; i < lines.size(); i++) {
                StringBuilder path = new StringBuilder();
                for (double[] p : lines.get(i).points()) {
                    double x = left + (t1 == t0 ? 0 : (p[0] - t0) / (t1 - t0)) * (WIDTH - left - 4);
                    double y = (HEIGHT - 18) - p[1] / max * (HEIGHT - 30);
                    path.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                }
                svg.append("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"").append(COLOURS[i % COLOURS.length])
                        .append("\" points=\"").append(path).append("\"/>");
                if (lines.get(i).points().size() == 1) {
                    // one sample draws no line: a dot, as Grafana does
                    String[] xy = path.toString().trim().split(",");
                    svg.append("<circle r=\"3\" cx=\"").append(xy[0]).append("\" cy=\"").append(xy[1]).append("\" fill=\"")
                            .append(COLOURS[i % COLOURS.length]).append("\"/>");
                }
            }
        }
        svg.append("</svg>");
        StringBuilder legend = new StringBuilder("<div class=\"legend\">");
        for (int i = 0; i < lines.size() && i < 6; i++) {
            legend.append("<span style=\"color:").append(COLOURS[i % COLOURS.length]).append("\">&#9644;</span> ")
                    .append(escape(lines.get(i).name())).append("<br>");
        }
        if (lines.size() > 6) {
            legend.append("… ").append(lines.size() - 6).append(" more series");
        }
        legend.append("</div>");
        return "<div class=\"panel\"><div class=\"title\">" + escape(panel.title()) + "</div>" + svg + legend + "</div>";
    }

    private record Line(String name, List<double[]> points) {
    }

    /** Grafana's legendFormat: {{label}} replaced by the series' label value. */
    static String legend(String format, JsonObject metric) {
        if (format.isBlank()) {
            return metric.toString();
        }
        Matcher m = LEGEND_LABEL.matcher(format);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(metric.getString(m.group(1), "")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String number(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static void screenshot(Path html, Path png) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        try {
            Path profile = Files.createTempDirectory(Files.createDirectories(Path.of("target", "observability")), "chromium-");
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                    "--window-size=1420,1000", "--user-data-dir=" + profile.toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).build();
        ChromeDriver chrome = new ChromeDriver(service, options);
        try {
            chrome.get(html.toAbsolutePath().toUri().toString());
            long height = (Long) chrome.executeScript("return document.documentElement.scrollHeight");
            // the whole page in one picture: a viewport as tall as the page
            chrome.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", 1420, "height", (int) height,
                    "deviceScaleFactor", 1, "mobile", false));
            Files.write(png, chrome.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            chrome.quit();
        }
    }
}
