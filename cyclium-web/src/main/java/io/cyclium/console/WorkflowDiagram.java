package io.cyclium.console;

import io.cyclium.workflow.StepView;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live picture of an instance's DAG as inline SVG: one column per depth (a step sits one
 * column right of its deepest dependency), a box per step coloured by its state with its attempt
 * and, while a retry waits, when it is due as every page says a time ("retry in 18 s", measured on
 * the database clock, the exact instant in the box's hover text); a step with a concurrency key names
 * it and its limit (or that its episode waits for it; the hover text says why); an arrow per
 * dependency. A box whose step has an episode links to that episode's page. Everything written
 * into the SVG is escaped.
 */
final class WorkflowDiagram {

    static final int BOX_W = 170;
    static final int BOX_H = 54;
    static final int GAP_X = 60;
    static final int GAP_Y = 18;
    static final Map<String, String> FILL = Map.of(
            "pending", "#e5e7eb", "queued", "#bfdbfe", "running", "#fde68a", "completed", "#bbf7d0", "failed", "#fecaca");

    private WorkflowDiagram() {
    }

    /**
     * {@code episodeUrl} turns an episode id into the link a box opens (already context-relative);
     * {@code now} is the database clock's, against which a retry's due time is told.
     */
    static String svg(List<StepView> steps, java.util.function.UnaryOperator<String> episodeUrl, LocalDateTime now) {
        Map<String, StepView> byId = new HashMap<>();
        steps.forEach(s -> byId.put(s.stepId(), s));
        Map<String, Integer> depth = new HashMap<>();
        steps.forEach(s -> depthOf(s.stepId(), byId, depth));
        Map<Integer, Integer> rows = new HashMap<>();
        Map<String, int[]> at = new HashMap<>();
        for (StepView s : steps) {
            int col = depth.get(s.stepId());
            int row = rows.merge(col, 1, Integer::sum) - 1;
            at.put(s.stepId(), new int[] {10 + col * (BOX_W + GAP_X), 10 + row * (BOX_H + GAP_Y)});
        }
        int width = 20 + (depth.values().stream().max(Integer::compare).orElse(0) + 1) * (BOX_W + GAP_X) - GAP_X;
        int height = 20 + rows.values().stream().max(Integer::compare).orElse(1) * (BOX_H + GAP_Y) - GAP_Y;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"workflow-dag\" width=\"").append(width)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\"><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\""
                        + " markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#6b7280\"/></marker></defs>");
        for (StepView s : steps) {
            int[] to = at.get(s.stepId());
            for (String dep : s.dependsOn()) {
                int[] from = at.get(dep);
                if (from != null) {
                    svg.append("<line class=\"edge\" x1=\"").append(from[0] + BOX_W).append("\" y1=\"").append(from[1] + BOX_H / 2)
                            .append("\" x2=\"").append(to[0]).append("\" y2=\"").append(to[1] + BOX_H / 2)
                            .append("\" stroke=\"#6b7280\" marker-end=\"url(#arrow)\"/>");
                }
            }
        }
        for (StepView s : steps) {
            int[] p = at.get(s.stepId());
            boolean waiting = "failed".equals(s.state()) && s.nextAttemptAt() != null;
            String fill = waiting ? "#fed7aa" : FILL.getOrDefault(s.state(), "#ffffff");
            String label = s.state() + (waiting ? " (retry)" : "") + " · attempt " + s.attempt() + "/" + s.maxAttempts();
            String third = waiting ? retryDue(s.nextAttemptAt(), now)
                    : s.approval() && s.approvedAt() == null && "pending".equals(s.state()) ? "awaits approval"
                    : s.concurrencyKey() != null ? keyLabel(s)
                    : s.critical() ? "" : "non-critical";
            if (s.episodeId() != null) {
                svg.append("<a href=\"").append(escape(episodeUrl.apply(s.episodeId()))).append("\">");
            }
            svg.append("<g class=\"step step-").append(escape(s.state())).append("\" data-step=\"").append(escape(s.stepId()))
                    .append("\"><title>").append(escape(s.stepId() + ": " + label + (s.errorClass() == null ? "" : " · " + s.errorClass())
                            + (waiting ? " · next attempt " + ConsoleFormat.exactUtc(s.nextAttemptAt()) : "")
                            + (s.concurrencyKey() == null ? "" : " · concurrency key " + s.concurrencyKey() + ", "
                                    + s.concurrencyLimit() + " at once per key")
                            + (s.queuedBecause() == null ? "" : " · waits: " + s.queuedBecause())))
                    .append("</title><rect x=\"").append(p[0]).append("\" y=\"").append(p[1]).append("\" width=\"").append(BOX_W)
                    .append("\" height=\"").append(BOX_H).append("\" rx=\"6\" fill=\"").append(fill)
                    .append("\" stroke=\"").append(s.critical() ? "#374151" : "#9ca3af").append("\"")
                    .append(s.critical() ? "" : " stroke-dasharray=\"4 3\"").append("/>");
            text(svg, p[0] + 8, p[1] + 17, "bold", s.stepId());
            text(svg, p[0] + 8, p[1] + 33, "normal", label);
            text(svg, p[0] + 8, p[1] + 48, "normal", third);
            svg.append("</g>");
            if (s.episodeId() != null) {
                svg.append("</a>");
            }
        }
        return svg.append("</svg>").toString();
    }

    private static void text(StringBuilder svg, int x, int y, String weight, String value) {
        if (value.isEmpty()) {
            return;
        }
        String shown = value.length() > 28 ? value.substring(0, 27) + "…" : value;
        svg.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" font-size=\"11\" font-weight=\"")
                .append(weight).append("\">").append(escape(shown)).append("</text>");
    }

    private static int depthOf(String id, Map<String, StepView> byId, Map<String, Integer> depth) {
        Integer known = depth.get(id);
        if (known != null) {
            return known;
        }
        depth.put(id, 0); // a guard: definitions are acyclic, this only stops a corrupt row from looping
        int d = 0;
        for (String dep : byId.get(id).dependsOn()) {
            if (byId.containsKey(dep)) {
                d = Math.max(d, depthOf(dep, byId, depth) + 1);
            }
        }
        depth.put(id, d);
        return d;
    }

    static String escape(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }

    /** A keyed step's third line: its key and limit, or, while its episode waits for that key, that it waits. */
    static String keyLabel(StepView s) {
        return s.queuedBecause() != null ? "waits for key " + s.concurrencyKey()
                : "key " + s.concurrencyKey() + ", " + s.concurrencyLimit() + " at once";
    }

    /** "retry in 18 s", or once it is due and not yet taken, "retry due 2 s ago". */
    static String retryDue(LocalDateTime due, LocalDateTime now) {
        String ago = ConsoleFormat.ago(due, now);
        return ago.startsWith("in ") ? "retry " + ago : "retry due " + ago;
    }
}
