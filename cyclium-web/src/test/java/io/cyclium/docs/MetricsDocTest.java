package io.cyclium.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md against the metric names in the code, read statically from the production
 * sources (no node runs): the first argument of every {@code count}, {@code time}, {@code record}
 * and {@code gauge} call in a class that uses {@code Telemetry}, with string constants of the same
 * class resolved ({@code METRIC + "_acquire"}), the names a ternary chooses between, and
 * {@code <loop>_failed} for every {@code BackgroundPass.run("<loop>", …)}. The registry adds the
 * {@code cyclium_} prefix ({@code MetricsTelemetry}); the doc names each series with it.
 *
 * <p>A name built at run time from a literal prefix ({@code "finding_" + kind}) cannot be listed:
 * the doc must then name at least one series with that prefix. Checking the names a live node
 * exports at {@code /metrics} is left to the Arquillian and server tests ({@code OperationsIT},
 * {@code EarSmokeIT}), which scrape it.
 */
class MetricsDocTest {

    static final String DOC = "docs/metrics.md";
    private static final Pattern CALL = Pattern.compile("\\b(count|time|record|gauge)\\(\\s*");
    private static final Pattern LOOP = Pattern.compile("BackgroundPass\\.run\\(\\s*\"([a-z][a-z0-9_]*)\"");
    private static final Pattern CONSTANT = Pattern.compile("static\\s+final\\s+String\\s+([A-Z][A-Z0-9_]*)\\s*=\\s*\"([a-z][a-z0-9_]*)\"\\s*;");
    private static final Pattern LITERAL = Pattern.compile("\"([a-z][a-z0-9_]*)\"");
    private static final Pattern DOC_SERIES = Pattern.compile("cyclium_[a-z0-9_]*[a-z0-9]");
    private static final List<String> EXPOSITION_SUFFIXES = List.of("_seconds_bucket", "_seconds_count", "_seconds_sum",
            "_seconds_max", "_seconds", "_total", "_bucket", "_count", "_sum", "_max");

    @Test
    void every_metric_the_code_records_is_documented() {
        Names code = namesInCode();
        Set<String> documented = documented(Docs.read(Docs.doc(DOC)));
        Set<String> missing = new TreeSet<>();
        code.names.forEach((name, file) -> {
            if (!documented.contains("cyclium_" + name)) {
                missing.add("cyclium_" + name + " (recorded in " + file + ")");
            }
        });
        code.prefixes.forEach((prefix, file) -> {
            if (documented.stream().noneMatch(d -> d.startsWith("cyclium_" + prefix) && !d.equals("cyclium_" + prefix))) {
                missing.add("cyclium_" + prefix + "… (a name built at run time in " + file + ")");
            }
        });
        assertThat(code.names).as("metric names found in the sources").containsKeys("episode_stored", "work_claims",
                "work_claims_acquire", "recovery_sweep", "heartbeat_failed", "workflow_instance_completed");
        assertThat(missing).as("metrics recorded by the code but not named in " + DOC
                + " (write the series as `cyclium_<name>` in its table)").isEmpty();
    }

    @Test
    void every_metric_in_the_doc_tables_is_recorded_by_the_code() {
        Names code = namesInCode();
        Set<String> unknown = new TreeSet<>();
        for (String cell : Docs.firstCells(Docs.read(Docs.doc(DOC)))) {
            Matcher m = DOC_SERIES.matcher(cell);
            while (m.find()) {
                String name = m.group().substring("cyclium_".length());
                boolean known = code.names.containsKey(name)
                        || code.prefixes.keySet().stream().anyMatch(name::startsWith);
                if (!known) {
                    unknown.add(m.group());
                }
            }
        }
        assertThat(unknown).as("series in the tables of " + DOC + " that no code records (renamed or removed?)").isEmpty();
    }

    /**
     * One row per series: a name described in two rows means two meanings under one name, which
     * MicroProfile Metrics also refuses when their tags differ (it registers the first and throws for
     * the other: {@code cyclium_episode_waiting} was once both the queue gauge [actor, reason] and the
     * durable waits' gauge without tags, and the second was never exported).
     */
    @Test
    void no_series_is_described_in_two_rows_of_the_tables() {
        Map<String, Integer> rows = new TreeMap<>();
        for (String cell : Docs.firstCells(Docs.read(Docs.doc(DOC)))) {
            Matcher m = DOC_SERIES.matcher(cell);
            Set<String> inRow = new TreeSet<>();
            while (m.find()) {
                inRow.add(m.group());
            }
            inRow.forEach(name -> rows.merge(name, 1, Integer::sum));
        }
        assertThat(rows).as("series of " + DOC + " and the rows that describe them").isNotEmpty();
        assertThat(rows.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("series described in more than one row of " + DOC).isEmpty();
    }

    /**
     * Names and run-time prefixes (without {@code cyclium_}), each with the file that records it, and
     * what each is recorded as: {@code count}, {@code time}, {@code record} or {@code gauge}, the
     * facade's method (a {@code <loop>_failed} is a {@code count}).
     */
    record Names(Map<String, String> names, Map<String, String> prefixes, Map<String, Set<String>> kinds) {
    }

    static Names namesInCode() {
        Map<String, String> names = new TreeMap<>();
        Map<String, String> prefixes = new TreeMap<>();
        Map<String, Set<String>> kinds = new TreeMap<>();
        for (Path file : Docs.mainSources()) {
            String source = Docs.read(file);
            String where = Docs.relative(file);
            Matcher loop = LOOP.matcher(source);
            while (loop.find()) {
                names.putIfAbsent(loop.group(1) + "_failed", where);
                kinds.computeIfAbsent(loop.group(1) + "_failed", k -> new TreeSet<>()).add("count");
            }
            if (!source.contains("Telemetry") && !source.contains("telemetry")
                    || where.contains("/io/cyclium/telemetry/")) {
                continue; // no metrics here, or the facade itself (which adds the cyclium_ prefix)
            }
            Map<String, String> constants = new HashMap<>();
            Matcher c = CONSTANT.matcher(source);
            while (c.find()) {
                constants.put(c.group(1), c.group(2));
            }
            Matcher call = CALL.matcher(source);
            while (call.find()) {
                String argument = firstArgument(source, call.end());
                if (argument.isEmpty() || argument.startsWith("String ")) {
                    continue; // a declaration such as count(String name, …), not a call
                }
                argument = resolveConstants(argument, constants);
                // a variable here (count(name, …)) names nothing: the helper it passes through is
                // itself called with literals, which this loop finds
                Matcher literal = LITERAL.matcher(argument);
                while (literal.find()) {
                    String rest = argument.substring(literal.end()).strip();
                    String before = argument.substring(0, literal.start()).strip();
                    if (rest.startsWith("+")) {
                        prefixes.putIfAbsent(literal.group(1), where);
                        kinds.computeIfAbsent(literal.group(1), k -> new TreeSet<>()).add(call.group(1));
                    } else if (!before.endsWith("+")) {
                        names.putIfAbsent(literal.group(1), where);
                        kinds.computeIfAbsent(literal.group(1), k -> new TreeSet<>()).add(call.group(1));
                    }
                }
            }
        }
        return new Names(names, prefixes, kinds);
    }

    /** Constants of the class replaced by their quoted values; "a" + "b" joined to "ab". */
    private static String resolveConstants(String argument, Map<String, String> constants) {
        String out = argument;
        for (Map.Entry<String, String> e : constants.entrySet()) {
            out = out.replaceAll("\\b" + e.getKey() + "\\b", "\"" + e.getValue() + "\"");
        }
        return out.replaceAll("\"\\s*\\+\\s*\"", "");
    }

    /** The source text of the argument starting at {@code from}, up to its comma or closing parenthesis. */
    private static String firstArgument(String source, int from) {
        int depth = 0;
        boolean inString = false;
        for (int i = from; i < source.length(); i++) {
            char ch = source.charAt(i);
            if (inString) {
                if (ch == '\\') {
                    i++;
                } else if (ch == '"') {
                    inString = false;
                }
                continue;
            }
            if (ch == '"') {
                inString = true;
            } else if (ch == '(') {
                depth++;
            } else if (ch == ')' || ch == ',') {
                if (depth == 0) {
                    return source.substring(from, i).strip();
                }
                if (ch == ')') {
                    depth--;
                }
            }
        }
        return "";
    }

    /** Every {@code cyclium_…} series the doc names, as written and without its Prometheus suffix. */
    static Set<String> documented(String markdown) {
        Set<String> names = new TreeSet<>();
        Matcher m = DOC_SERIES.matcher(markdown);
        while (m.find()) {
            String name = m.group();
            names.add(name);
            for (String suffix : EXPOSITION_SUFFIXES) {
                if (name.endsWith(suffix)) {
                    names.add(name.substring(0, name.length() - suffix.length()));
                    break;
                }
            }
        }
        return names;
    }
}
