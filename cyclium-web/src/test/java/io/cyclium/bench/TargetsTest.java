package io.cyclium.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {

    private static String outcome(Map<String, List<Double>> figures, List<Targets.Target> targets, String figure) {
        return Targets.check(figures, targets).stream().filter(v -> figure.equals(v.figure())).findFirst()
                .map(Targets.Verdict::outcome).orElseThrow(() -> new AssertionError("no verdict for " + figure));
    }

    private static Map<String, List<Double>> twoFigures(String first, double a, String second, double b) {
        Map<String, List<Double>> figures = new LinkedHashMap<>();
        figures.put(first, List.of(a));
        figures.put(second, List.of(b));
        return figures;
    }

    @Test
    void aLowerBoundIsMetOnlyWhenEveryRoundMeetsIt() {
        String figure = "one node, CDI from 4 threads: rate ÷ db-scheduler's (same round)";
        Map<String, List<Double>> figures = new LinkedHashMap<>();
        figures.put(figure, List.of(1.02, 1.10, 1.05));
        assertEquals("met", outcome(figures, ThroughputBench.TARGETS, figure));
        figures.put(figure, List.of(0.97, 1.10, 1.05));
        assertEquals("median only", outcome(figures, ThroughputBench.TARGETS, figure));
        figures.put(figure, List.of(0.57, 0.62, 1.21));
        assertEquals("NOT met", outcome(figures, ThroughputBench.TARGETS, figure));
    }

    @Test
    void anUpperBoundTakesTheHighestRoundAsTheWorst() {
        String figure = "one node, CDI from 4 threads: CPU/unit ÷ db-scheduler's (same round)";
        Map<String, List<Double>> figures = Map.of(figure, List.of(1.17, 1.62, 1.25));
        Targets.Verdict v = Targets.check(figures, ThroughputBench.TARGETS).stream()
                .filter(x -> figure.equals(x.figure())).findFirst().orElseThrow();
        assertEquals(1.62, v.worst());
        assertEquals(1.25, v.median());
        assertEquals("median only", v.outcome());
    }

    @Test
    void eachBuildOfAComparedRunIsCheckedApart() {
        String after = "in-commit: 3-step chain step episodes/s / plain episodes/s";
        String before = "before, in-commit: 3-step chain step episodes/s / plain episodes/s";
        Map<String, List<Double>> figures = twoFigures(after, 1.04, before, 0.45);
        assertEquals("met", outcome(figures, WorkflowBench.TARGETS, after));
        assertEquals("NOT met", outcome(figures, WorkflowBench.TARGETS, before));
    }

    @Test
    void theChainsStatementsAndTheDagsAreDifferentFigures() {
        String chain = "in-commit: 3-step chain, step episodes, one instance per POST (8 clients): statements/episode";
        String dag = "in-commit: statements per step";
        Map<String, List<Double>> figures = twoFigures(chain, 6.33, dag, 9.5);
        List<Targets.Verdict> verdicts = Targets.check(figures, WorkflowBench.TARGETS);
        assertEquals(List.of("3-step chain: statements per step"), verdicts.stream()
                .filter(v -> chain.equals(v.figure())).map(v -> v.target().what()).toList());
        assertEquals("met", outcome(figures, WorkflowBench.TARGETS, chain));
        assertEquals("NOT met", outcome(figures, WorkflowBench.TARGETS, dag));
    }

    @Test
    void aTargetWhosePhaseDidNotRunIsNotMeasuredRatherThanMet() {
        Map<String, List<Double>> figures = Map.of("in-commit: idle statements/s", List.of(0.67));
        List<Targets.Verdict> verdicts = Targets.check(figures, WorkflowBench.TARGETS);
        assertEquals("not measured", verdicts.stream().filter(v -> v.target().what().startsWith("3-step chain: step"))
                .findFirst().orElseThrow().outcome());
        assertEquals("met", outcome(figures, WorkflowBench.TARGETS, "in-commit: idle statements/s"));
    }

    @Test
    void thePostTargetMatchesWhateverNumberOfClientsThePhaseUsed() {
        String figure = "one node, POST /events (16 clients): rate ÷ db-scheduler's (same round)";
        assertEquals("NOT met", outcome(Map.of(figure, List.of(0.31)), ThroughputBench.TARGETS, figure));
    }
}
