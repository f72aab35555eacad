package io.cyclium.timing;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A classic five-field cron expression evaluated in UTC (no time zones, so no daylight-saving
 * gaps or repeats).
 *
 * <p>Fields, in order: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or
 * {@code JAN}-{@code DEC}) and day of week (0-7 or {@code SUN}-{@code SAT}, where both 0 and 7
 * mean Sunday). Names are case-insensitive. Each field is a comma-separated list of items, and an
 * item is {@code *}, a single value, a range {@code a-b}, or either of those followed by a step
 * {@code /n}. A single value with a step ({@code 5/15}) runs from that value to the end of the
 * field's range.
 *
 * <p>Day matching follows Vixie cron: when both the day-of-month and the day-of-week field are
 * restricted, a day matches if <em>either</em> matches; otherwise both must match. As in Vixie
 * cron, a field counts as unrestricted when its text starts with {@code *}, so {@code *}&#47;2
 * in the day-of-month field still combines with the day-of-week field by "and".
 *
 * <p>Supported macros: {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly},
 * {@code @daily}, {@code @midnight} and {@code @hourly}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class CronSchedule {

    /**
     * How far {@link #nextAfter(Instant)} looks before deciding that the expression never fires.
     * Eight years is the longest gap between two February 29ths (across a non-leap century year
     * such as 2100), so any expression built only from ordinary fields fires within it.
     */
    static final int SEARCH_YEARS = 8;

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private static final String MACRO_LIST =
            "@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly";

    private enum Field {
        MINUTE("minute", 0, 59, null),
        HOUR("hour", 0, 23, null),
        DAY_OF_MONTH("day-of-month", 1, 31, null),
        MONTH("month", 1, 12, new String[] {
            "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}),
        DAY_OF_WEEK("day-of-week", 0, 7, new String[] {
            "SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"});

        final String label;
        final int min;
        final int max;
        /** Names for the values min, min+1, ...; null when the field has none. */
        final String[] names;

        Field(String label, int min, int max, String[] names) {
            this.label = label;
            this.min = min;
            this.max = max;
            this.names = names;
        }

        String allowed() {
            String range = min + "-" + max;
            return names == null ? range : range + " or " + names[0] + "-" + names[names.length - 1];
        }

        /** The largest value {@code *} stands for (day of week stops at 6: 7 is Sunday again). */
        int starMax() {
            return this == DAY_OF_WEEK ? 6 : max;
        }
    }

    private final String spec;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    /** Bits 0 (Sunday) to 6 (Saturday). */
    private final BitSet daysOfWeek;
    /** True when day of month or day of week is unrestricted, so the two combine by "and". */
    private final boolean dayFieldsAnd;

    private CronSchedule(String spec, String[] fields) {
        this.spec = spec;
        this.minutes = parseField(spec, Field.MINUTE, fields[0]);
        this.hours = parseField(spec, Field.HOUR, fields[1]);
        this.daysOfMonth = parseField(spec, Field.DAY_OF_MONTH, fields[2]);
        this.months = parseField(spec, Field.MONTH, fields[3]);
        this.daysOfWeek = parseField(spec, Field.DAY_OF_WEEK, fields[4]);
        this.dayFieldsAnd = fields[2].startsWith("*") || fields[4].startsWith("*");
    }

    /**
     * Parses a five-field cron expression or one of the supported macros.
     *
     * @throws InvalidCronException naming the spec, the field and what that field allows
     */
    public static CronSchedule parse(String spec) {
        if (spec == null) {
            throw new InvalidCronException(null, "a cron expression is required");
        }
        String trimmed = spec.strip();
        if (trimmed.isEmpty()) {
            throw new InvalidCronException(spec, "a cron expression is required, got an empty string");
        }
        String expanded = trimmed;
        if (trimmed.startsWith("@")) {
            expanded = MACROS.get(trimmed.toLowerCase(Locale.ROOT));
            if (expanded == null) {
                throw new InvalidCronException(trimmed,
                        "unknown macro " + trimmed + " (allowed: " + MACRO_LIST + ")");
            }
        }
        String[] fields = expanded.split("\\s+");
        if (fields.length != 5) {
            throw new InvalidCronException(trimmed, "expected 5 fields (minute hour day-of-month"
                    + " month day-of-week) but found " + fields.length);
        }
        return new CronSchedule(trimmed, fields);
    }

    /** The expression as given to {@link #parse(String)}, without surrounding whitespace. */
    public String spec() {
        return spec;
    }

    /**
     * The first whole minute strictly after {@code after} at which this schedule fires.
     *
     * <p>The search skips whole months, days and hours that cannot match, so even sparse
     * schedules are found quickly.
     *
     * @throws InvalidCronException when nothing matches within {@value #SEARCH_YEARS} years, which
     *     means the expression names a date that does not occur (such as February 30)
     */
    public Instant nextAfter(Instant after) {
        Objects.requireNonNull(after, "after");
        LocalDateTime t = LocalDateTime.ofInstant(after, ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.MINUTES)
                .plusMinutes(1);
        LocalDateTime limit = t.plusYears(SEARCH_YEARS);
        while (!t.isAfter(limit)) {
            if (!months.get(t.getMonthValue())) {
                int month = months.nextSetBit(t.getMonthValue() + 1);
                t = month < 0
                        ? LocalDateTime.of(t.getYear() + 1, months.nextSetBit(1), 1, 0, 0)
                        : LocalDateTime.of(t.getYear(), month, 1, 0, 0);
                continue;
            }
            if (!dayMatches(t.toLocalDate())) {
                t = t.toLocalDate().plusDays(1).atStartOfDay();
                continue;
            }
            int hour = hours.nextSetBit(t.getHour());
            if (hour < 0) {
                t = t.toLocalDate().plusDays(1).atStartOfDay();
                continue;
            }
            if (hour != t.getHour()) {
                t = t.withHour(hour).withMinute(0);
            }
            int minute = minutes.nextSetBit(t.getMinute());
            if (minute < 0) {
                t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
                continue;
            }
            return t.withMinute(minute).toInstant(ZoneOffset.UTC);
        }
        throw new InvalidCronException(spec, "no matching time within " + SEARCH_YEARS
                + " years after " + after + "; the expression names a date that never occurs");
    }

    private boolean dayMatches(LocalDate date) {
        boolean dom = daysOfMonth.get(date.getDayOfMonth());
        boolean dow = daysOfWeek.get(date.getDayOfWeek().getValue() % 7);
        return dayFieldsAnd ? dom && dow : dom || dow;
    }

    @Override
    public String toString() {
        return "CronSchedule[" + spec + "]";
    }

    // ---- parsing ------------------------------------------------------------------------------

    private static BitSet parseField(String spec, Field field, String text) {
        BitSet bits = new BitSet(field.max + 1);
        for (String item : text.split(",", -1)) {
            if (item.isEmpty()) {
                throw new InvalidCronException(spec, field.label + " list \"" + text
                        + "\" has an empty entry (allowed: " + field.allowed() + ")");
            }
            parseItem(spec, field, item, bits);
        }
        return bits;
    }

    private static void parseItem(String spec, Field field, String item, BitSet bits) {
        int slash = item.indexOf('/');
        String range = slash < 0 ? item : item.substring(0, slash);
        int step = slash < 0 ? 1 : parseStep(spec, field, item, item.substring(slash + 1));
        int low;
        int high;
        if (range.equals("*")) {
            low = field.min;
            high = field.starMax();
        } else {
            int dash = range.indexOf('-');
            if (dash < 0) {
                low = parseValue(spec, field, range);
                high = slash < 0 ? low : Math.max(low, field.starMax());
            } else {
                low = parseValue(spec, field, range.substring(0, dash));
                high = parseValue(spec, field, range.substring(dash + 1));
                if (low > high) {
                    throw new InvalidCronException(spec, field.label + " range " + range
                            + " goes backwards; write it from low to high within "
                            + field.allowed());
                }
            }
        }
        for (int v = low; v <= high; v += step) {
            bits.set(field == Field.DAY_OF_WEEK && v == 7 ? 0 : v);
        }
    }

    private static int parseStep(String spec, Field field, String item, String text) {
        if (!text.isEmpty() && text.length() <= 4 && text.chars().allMatch(CronSchedule::isDigit)) {
            int step = Integer.parseInt(text);
            if (step > 0) {
                return step;
            }
        }
        throw new InvalidCronException(spec, field.label + " step in \"" + item
                + "\" must be a whole number of at least 1");
    }

    private static int parseValue(String spec, Field field, String text) {
        if (text.isEmpty()) {
            throw new InvalidCronException(spec, field.label + " has a range with a missing bound"
                    + " (allowed: " + field.allowed() + ")");
        }
        if (text.chars().allMatch(CronSchedule::isDigit)) {
            if (text.length() > 4) {
                throw new InvalidCronException(spec, field.label + " " + text
                        + " is out of range " + field.min + "-" + field.max);
            }
            int value = Integer.parseInt(text);
            if (value < field.min || value > field.max) {
                throw new InvalidCronException(spec, field.label + " " + value
                        + " is out of range " + field.min + "-" + field.max);
            }
            return value;
        }
        if (field.names != null) {
            for (int i = 0; i < field.names.length; i++) {
                if (field.names[i].equalsIgnoreCase(text)) {
                    return field.min + i;
                }
            }
        }
        throw new InvalidCronException(spec, field.label + " \"" + text
                + "\" is not a valid value (allowed: " + field.allowed() + ")");
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }
}
