package io.cyclium.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The bounds an issue sets on a benchmark's figures, checked against the figures of this run and
 * printed as met or not: a figure is met when every round met it (one good round out of three is
 * the machine's swing, not the build), "median only" when its median did and some round did not.
 * A figure the run did not measure (a phase left out) is listed as such, never as met.
 */
final class Targets {

    /** A bound on every figure whose name {@code figure} matches (each build or mode of the run has its own). */
    record Target(String what, Pattern figure, boolean atLeast, double bound) {

        static Target atLeast(String what, String figureRegex, double bound) {
            return new Target(what, Pattern.compile(figureRegex), true, bound);
        }

        static Target atMost(String what, String figureRegex, double bound) {
            return new Target(what, Pattern.compile(figureRegex), false, bound);
        }

        boolean holds(double value) {
            return atLeast ? value >= bound : value <= bound;
        }
    }

    /** How one figure fared: its median and its worst round against the bound. */
    record Verdict(Target target, String figure, double median, double worst, String outcome) {
    }

    private Targets() {
    }

    /** The verdict for each figure each target matches, in the targets' order (one "not measured" for a target that matched none). */
    static List<Verdict> check(Map<String, List<Double>> figures, List<Target> targets) {
        List<Verdict> out = new ArrayList<>();
        for (Target t : targets) {
            boolean any = false;
            for (Map.Entry<String, List<Double>> e : figures.entrySet()) {
                if (!t.figure().matcher(e.getKey()).matches() || e.getValue().isEmpty()) {
                    continue;
                }
                any = true;
                List<Double> sorted = e.getValue().stream().sorted().toList();
                double median = BenchClients.median(sorted);
                double worst = t.atLeast() ? sorted.get(0) : sorted.get(sorted.size() - 1);
                String outcome = t.holds(worst) ? "met" : t.holds(median) ? "median only" : "NOT met";
                out.add(new Verdict(t, e.getKey(), median, worst, outcome));
            }
            if (!any) {
                out.add(new Verdict(t, null, Double.NaN, Double.NaN, "not measured"));
            }
        }
        return out;
    }

    /** Prints {@link #check}'s verdicts under {@code title}. */
    static void print(String title, Map<String, List<Double>> figures, List<Target> targets) {
        System.out.println();
        System.out.println("[bench] " + title + " (every round must meet a bound; the worst round is shown):");
        for (Verdict v : check(figures, targets)) {
            String bound = (v.target().atLeast() ? ">= " : "<= ") + number(v.target().bound());
            if (v.figure() == null) {
                System.out.printf(Locale.ROOT, "  %-12s %s %s: not measured in this run%n", "-", v.target().what(), bound);
            } else {
                System.out.printf(Locale.ROOT, "  %-12s %s %s: median %s, worst %s  [%s]%n", v.outcome(), v.target().what(), bound,
                        number(v.median()), number(v.worst()), v.figure());
            }
        }
    }

    private static String number(double d) {
        return String.format(Locale.ROOT, Math.abs(d) < 10 ? "%.2f" : "%.1f", d);
    }
}
