package io.cyclium.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md against the code that reads the configuration. The keys are collected
 * from the production sources of both modules — every string literal that is a whole
 * {@code cyclium.*} key, wherever a class reads one — so a key added anywhere needs a row, and a
 * row whose key no code reads any more fails too. For the numeric settings validated by
 * {@code CycliumConfigReader} the row's default and range are checked against the reader's call.
 */
class ConfigurationDocTest {

    static final String DOC = "docs/configuration.md";
    /** {@code cyclium.*}, and the one {@code otel.*} switch the reader reads too ({@code otel.sdk.disabled}). */
    private static final Pattern KEY_LITERAL = Pattern.compile("\"((?:cyclium|otel)\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*)\"");
    private static final Pattern CONSTANT = Pattern.compile(
            "static\\s+final\\s+String\\s+([A-Z0-9_]+)\\s*=\\s*\"(cyclium\\.[a-z0-9.-]+)\"");
    /** {@code number(KEY, default, min, max, …)} and {@code millis(KEY, default, min, max)} in the reader. */
    private static final Pattern RANGE_CALL = Pattern.compile(
            "\\b(?:number|millis)\\(\\s*([A-Z0-9_]+)\\s*,\\s*(-?[0-9_]+)L?\\s*,\\s*(-?[0-9_]+)L?\\s*,\\s*(-?[0-9_]+)L?\\s*[,)]");
    /** Names of span attributes ({@code cyclium.actor}, …), not configuration keys. */
    private static final Path SPAN_ATTRIBUTES = Path.of("io", "cyclium", "telemetry", "SpanAttributes.java");
    private static final Pattern DOC_KEY = Pattern.compile("`((?:cyclium|otel)\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*)`");

    @Test
    void every_key_the_code_reads_is_documented() {
        Set<String> documented = mentioned(Docs.read(Docs.doc(DOC)));
        Set<String> missing = new TreeSet<>();
        keysInCode().forEach((key, file) -> {
            if (!documented.contains(key)) {
                missing.add(key + " (read in " + file + ")");
            }
        });
        assertThat(missing).as("configuration keys read by the code (file named) but missing from " + DOC
                + "; add a row: property, default, allowed, meaning").isEmpty();
    }

    @Test
    void every_documented_key_is_read_by_the_code() {
        Map<String, String> inCode = keysInCode();
        Set<String> stale = new TreeSet<>(tableKeys(Docs.read(Docs.doc(DOC))).keySet());
        stale.removeAll(inCode.keySet());
        assertThat(stale).as("rows of " + DOC + " whose key no production source names any more").isEmpty();
    }

    @Test
    void numeric_defaults_and_ranges_match_the_reader() {
        Path reader = Docs.root().resolve("cyclium-ejb/src/main/java/io/cyclium/config/CycliumConfigReader.java");
        String source = Docs.read(reader);
        Map<String, String> constants = new HashMap<>();
        Matcher c = CONSTANT.matcher(source);
        while (c.find()) {
            constants.put(c.group(1), c.group(2));
        }
        Map<String, String[]> rows = tableKeys(Docs.read(Docs.doc(DOC)));
        List<String> problems = new ArrayList<>();
        int checked = 0;
        Matcher m = RANGE_CALL.matcher(source);
        while (m.find()) {
            String key = constants.get(m.group(1));
            if (key == null) {
                continue;
            }
            checked++;
            long def = Long.parseLong(m.group(2).replace("_", ""));
            long min = Long.parseLong(m.group(3).replace("_", ""));
            long max = Long.parseLong(m.group(4).replace("_", ""));
            String[] row = rows.get(key);
            if (row == null || row.length < 3) {
                problems.add(key + ": no row with default and allowed columns");
                continue;
            }
            if (!row[1].contains("`" + def + "`")) {
                problems.add(key + ": the reader's default is " + def + ", the row says " + row[1].strip());
            }
            String range = min == -max ? "±" + max : min + "–" + max;
            if (!row[2].contains(range)) {
                problems.add(key + ": the reader allows " + range + ", the row says " + row[2].strip());
            }
        }
        assertThat(checked).as("numeric settings found in CycliumConfigReader").isGreaterThan(10);
        assertThat(problems).as(DOC + " against CycliumConfigReader").isEmpty();
    }

    /** Every whole {@code cyclium.*} key written as a string literal in the production sources, with a file that names it. */
    static Map<String, String> keysInCode() {
        Map<String, String> keys = new HashMap<>();
        for (Path file : Docs.mainSources()) {
            if (file.endsWith(SPAN_ATTRIBUTES)) {
                continue;
            }
            Matcher m = KEY_LITERAL.matcher(Docs.read(file));
            while (m.find()) {
                keys.putIfAbsent(m.group(1), Docs.relative(file));
            }
        }
        assertThat(keys).as("cyclium.* keys found in the sources").containsKey("cyclium.work-claims.lease-seconds");
        return keys;
    }

    private static Set<String> mentioned(String markdown) {
        Set<String> keys = new TreeSet<>();
        Matcher m = DOC_KEY.matcher(markdown);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    /** Rows whose first cell is one {@code `cyclium.…`} (or {@code `otel.…`}) key, with their cells. */
    static Map<String, String[]> tableKeys(String markdown) {
        Map<String, String[]> rows = new HashMap<>();
        for (String line : Docs.withoutFences(markdown).split("\n")) {
            String t = line.strip();
            if (!t.startsWith("|")) {
                continue;
            }
            String[] cells = t.substring(1).split("(?<!\\\\)\\|", -1);
            Optional<String> key = Optional.of(cells[0].strip()).filter(s -> s.matches("`(?:cyclium|otel)\\.[a-z0-9.-]+`"))
                    .map(s -> s.substring(1, s.length() - 1));
            key.ifPresent(k -> rows.put(k, cells));
        }
        return rows;
    }
}
