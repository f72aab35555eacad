package io.cyclium.console;

import io.cyclium.store.Jsons;
import io.cyclium.store.JsonText;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.stream.JsonGenerator;
import java.io.StringWriter;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * How the console writes times, durations, statuses and JSON, in one place so every page says
 * it the same way: "3 min ago" with the exact UTC instant on hover, "took 30 ms", one colour (tone)
 * per meaning, JSON pretty-printed. Times in the database are UTC stamped by the database clock;
 * "ago" is measured against that clock too ({@link ConsoleClock}), never the browser's.
 */
@Named("fmt")
@ApplicationScoped
public class ConsoleFormat {

    /** The one colour each status means, wherever it is shown (episodes, claims, outputs, findings, requests). */
    public enum Tone { OK, BAD, ACTIVE, WAIT, MUTED }

    private static final Map<String, Tone> TONES = Map.ofEntries(
            Map.entry("done", Tone.OK), Map.entry("delivered", Tone.OK), Map.entry("completed", Tone.OK),
            Map.entry("cleared", Tone.OK), Map.entry("full", Tone.OK), Map.entry("closed", Tone.OK), Map.entry("ok", Tone.OK),
            Map.entry("failed", Tone.BAD), Map.entry("partially_failed", Tone.BAD), Map.entry("critical", Tone.BAD),
            Map.entry("error", Tone.BAD), Map.entry("open", Tone.BAD), Map.entry("disabled", Tone.BAD),
            Map.entry("running", Tone.ACTIVE), Map.entry("claimed", Tone.ACTIVE), Map.entry("active", Tone.ACTIVE),
            Map.entry("retrying", Tone.ACTIVE), Map.entry("info", Tone.ACTIVE),
            Map.entry("blocked", Tone.WAIT), Map.entry("pending", Tone.WAIT), Map.entry("proposed", Tone.WAIT),
            Map.entry("expired", Tone.WAIT), Map.entry("warning", Tone.WAIT), Map.entry("interrupted", Tone.WAIT),
            Map.entry("trigger_only", Tone.WAIT), Map.entry("half_open", Tone.WAIT), Map.entry("refused", Tone.WAIT),
            Map.entry("paused", Tone.WAIT),
            Map.entry("canceled", Tone.MUTED), Map.entry("superseded", Tone.MUTED), Map.entry("released", Tone.MUTED));

    private static final DateTimeFormatter EXACT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT);
    private static final JsonWriterFactory PRETTY = Jsons.provider().createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true));
    static final int PREVIEW_CHARS = 90;

    /** The CSS class of a status badge: {@code tone-ok}, {@code tone-bad}, ... ({@code tone-muted} for unknown ones). */
    public String tone(String status) {
        return toneOf(status);
    }

    static String toneOf(String status) {
        Tone t = status == null ? null : TONES.get(status.toLowerCase(Locale.ROOT));
        return "tone-" + (t == null ? Tone.MUTED : t).name().toLowerCase(Locale.ROOT);
    }

    /** A wire name as words: {@code partially_failed} → "partially failed". */
    public String words(String wire) {
        return wire == null ? "" : wire.replace('_', ' ');
    }

    /** "12 s ago", "3 min ago", "in 40 s" for a time ahead of {@code now}; empty for no time. */
    public static String ago(LocalDateTime at, LocalDateTime now) {
        if (at == null || now == null) {
            return "";
        }
        long ms = Duration.between(at, now).toMillis();
        if (Math.abs(ms) < 1_000) {
            return "just now";
        }
        return ms > 0 ? coarse(ms) + " ago" : "in " + coarse(-ms);
    }

    /** The exact instant, for the hover text: {@code 2026-11-30 08:12:38.317 UTC}. */
    public String exact(LocalDateTime at) {
        return exactUtc(at);
    }

    static String exactUtc(LocalDateTime at) {
        return at == null ? "" : EXACT.format(at) + " UTC";
    }

    /** ISO-8601 with a Z, for {@code <time datetime>}. */
    public String iso(LocalDateTime at) {
        return at == null ? "" : at + "Z";
    }

    /** Milliseconds from {@code at} to {@code now} (negative when ahead), for the page's ticking clock. */
    public static long ageMs(LocalDateTime at, LocalDateTime now) {
        return at == null || now == null ? 0 : Duration.between(at, now).toMillis();
    }

    /** The time between two instants: "30 ms", "1.2 s", "3 min 4 s", "2 h 5 min"; empty when either is missing. */
    public String between(LocalDateTime from, LocalDateTime to) {
        return from == null || to == null ? "" : duration(Duration.between(from, to).toMillis());
    }

    /** A duration in milliseconds, as people read it. */
    public String ms(Long ms) {
        return ms == null ? "" : duration(ms);
    }

    static String duration(long ms) {
        if (ms < 0) {
            return "-" + duration(-ms);
        }
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        if (s < 86_400) {
            return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
        }
        return s / 86_400 + " d" + (s % 86_400 / 3600 == 0 ? "" : " " + s % 86_400 / 3600 + " h");
    }

    /** The largest unit only, for "ago": "12 s", "3 min", "2 h", "4 d". */
    static String coarse(long ms) {
        long s = ms / 1000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min";
        }
        if (s < 86_400) {
            return s / 3600 + " h";
        }
        return s / 86_400 + " d";
    }

    /** A JSON value as text (null for none). */
    public String json(JsonValue value) {
        return value == null || value.getValueType() == JsonValue.ValueType.NULL ? null : value.toString();
    }

    /** JSON text indented for reading; text that is not JSON comes back unchanged. */
    public String pretty(String json) {
        return prettyJson(json);
    }

    static String prettyJson(String json) {
        if (json == null || json.isBlank()) {
            return "";
        }
        JsonValue value;
        try {
            value = JsonText.parse(json);
        } catch (RuntimeException notJson) {
            return json;
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT && value.getValueType() != JsonValue.ValueType.ARRAY) {
            return json;
        }
        StringWriter out = new StringWriter();
        try (JsonWriter w = PRETTY.createWriter(out)) {
            w.write(value);
        }
        return out.toString().strip();
    }

    /** One line, cut at {@value #PREVIEW_CHARS} characters: what a collapsed JSON value shows. */
    public String preview(String json) {
        if (json == null) {
            return "";
        }
        String line = json.replaceAll("\\s+", " ").strip();
        return line.length() <= PREVIEW_CHARS ? line : line.substring(0, PREVIEW_CHARS - 1) + "…";
    }
}
