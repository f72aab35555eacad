package io.cyclium.console;

import java.io.Serializable;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;

/**
 * Steps of one run on a time axis: what the {@code cy:timeline} component draws. An episode's
 * journal is one source ({@link EpisodeTimeline}); a workflow's step episodes can be another — the
 * component only knows these records.
 *
 * @param start   the left edge of the axis (UTC, database clock)
 * @param end     the right edge: when it finished, or "now" while it runs
 * @param running whether the right edge is "now"
 * @param entries the rows, in time order
 * @param spans   waits drawn across the rows' axis (an approval awaited, a wait), with their lengths
 */
public record Timeline(LocalDateTime start, LocalDateTime end, boolean running, List<Entry> entries, List<Span> spans)
        implements Serializable {

    /** What kind of mark a row carries besides its bar; one CSS class per kind. */
    public enum Mark {
        NONE, INTERRUPTED, RESUMED, RESTARTED, LEASE_MOVED, WAIT, FAILED, DONE;

        public String css() {
            return "mark-" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One row: a step ended at {@code at} after working {@code costMs} (null: a point in time).
     *
     * @param note what the mark means in words ("lease moved from node-a to node-b at fence 3")
     * @param detail the step's JSON detail (may be null)
     */
    public record Entry(String label, String node, LocalDateTime at, Long costMs, Mark mark, String note, String detail,
            String errorClass) implements Serializable {
    }

    /** A stretch of waiting between two instants ({@code to} null: still waiting). */
    public record Span(String label, LocalDateTime from, LocalDateTime to) implements Serializable {
    }

    public long totalMs() {
        return Math.max(1, Duration.between(start, end).toMillis());
    }

    /** Where a time falls on the axis, in percent (clamped to 0..100). */
    public double percentAt(LocalDateTime t) {
        if (t == null) {
            return 0;
        }
        return clamp(100.0 * Duration.between(start, t).toMillis() / totalMs());
    }

    /** The left edge of a row's bar: when its work began. */
    public double barLeft(Entry e) {
        return e.costMs() == null ? percentAt(e.at()) : clamp(percentAt(e.at()) - barWidthRaw(e));
    }

    /** The width of a row's bar, at least a sliver so a 1 ms step is still visible. */
    public double barWidth(Entry e) {
        return Math.max(0.6, Math.min(barWidthRaw(e), 100 - barLeft(e)));
    }

    private double barWidthRaw(Entry e) {
        return e.costMs() == null ? 0 : 100.0 * e.costMs() / totalMs();
    }

    public double spanLeft(Span s) {
        return percentAt(s.from());
    }

    public double spanWidth(Span s) {
        return Math.max(0.6, percentAt(s.to() == null ? end : s.to()) - percentAt(s.from()));
    }

    /** Milliseconds from the axis' start to a row's end, for the "+1.2 s" column. */
    public long offsetMs(Entry e) {
        return e.at() == null ? 0 : Duration.between(start, e.at()).toMillis();
    }

    public long spanMs(Span s) {
        return Duration.between(s.from(), s.to() == null ? end : s.to()).toMillis();
    }

    /** Round to a tenth of a percent for the style attribute, in a locale-proof format. */
    public String pct(double value) {
        return String.format(java.util.Locale.ROOT, "%.1f%%", value);
    }

    private static double clamp(double v) {
        return Math.max(0, Math.min(100, v));
    }
}
