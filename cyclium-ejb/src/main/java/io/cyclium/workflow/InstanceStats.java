package io.cyclium.workflow;

import io.cyclium.store.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The final statistics of an instance: wall duration, steps that ran, attempts and retries, the
 * run time of each step (all its attempts) and the critical path — the chain of dependencies with
 * the most step run time, i.e. what bounded the instance's duration.
 */
public record InstanceStats(long durationMs, int stepsRun, int attempts, int retries, Map<String, Long> stepMs,
        List<String> criticalPath, long criticalPathMs) {

    public static InstanceStats of(WorkflowDefinition def, LocalDateTime startedAt, LocalDateTime now, List<StepRow> steps) {
        Map<String, Long> ms = new LinkedHashMap<>();
        int run = 0;
        int attempts = 0;
        for (StepRow s : steps) {
            ms.put(s.stepId(), s.runMs());
            attempts += s.attempt();
            run += s.attempt() > 0 ? 1 : 0;
        }
        // longest path by run time over the scheduled steps; definition order is a topological
        // order only by accident, so memoise over dependencies instead
        Map<String, Long> best = new HashMap<>();
        Map<String, String> via = new HashMap<>();
        String end = null;
        for (StepRow s : steps) {
            long total = longest(def, s.stepId(), ms, best, via);
            if (end == null || total > best.get(end)) {
                end = s.stepId();
            }
        }
        List<String> path = new ArrayList<>();
        for (String at = end; at != null; at = via.get(at)) {
            path.add(at);
        }
        Collections.reverse(path);
        return new InstanceStats(Duration.between(startedAt, now).toMillis(), run, attempts, attempts - run, ms, path,
                end == null ? 0 : best.get(end));
    }

    private static long longest(WorkflowDefinition def, String id, Map<String, Long> ms, Map<String, Long> best,
            Map<String, String> via) {
        Long known = best.get(id);
        if (known != null) {
            return known;
        }
        long before = 0;
        String from = null;
        for (String dep : def.step(id).map(StepDefinition::dependsOn).orElse(List.of())) {
            if (ms.containsKey(dep)) {
                long d = longest(def, dep, ms, best, via);
                if (from == null || d > before) {
                    before = d;
                    from = dep;
                }
            }
        }
        if (from != null) {
            via.put(id, from);
        }
        long total = before + ms.getOrDefault(id, 0L);
        best.put(id, total);
        return total;
    }

    public JsonObject toJson() {
        JsonObjectBuilder steps = Jsons.object();
        stepMs.forEach(steps::add);
        return Jsons.object().add("durationMs", durationMs).add("stepsRun", stepsRun).add("attempts", attempts)
                .add("retries", retries).add("stepMs", steps).add("criticalPath", Jsons.provider().createArrayBuilder(criticalPath))
                .add("criticalPathMs", criticalPathMs).build();
    }
}
