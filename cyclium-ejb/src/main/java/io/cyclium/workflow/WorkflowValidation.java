package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import io.cyclium.actor.ActorDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a workflow before anything stores or runs it: ids well formed, no duplicate step id,
 * every {@code dependsOn} names a step, every step names a deployed actor and one of its
 * expectations, retry numbers in range, and no cycle. Each issue names the field it is about
 * ({@code steps[2].dependsOn[0]}) and the names involved, so a code declaration fails the deployment
 * and a JSON document gets a 400 saying exactly what to fix.
 */
public final class WorkflowValidation {

    /** One thing wrong, with the JSON path of the field it is about. */
    public record Issue(String field, String message) {
        @Override
        public String toString() {
            return field + ": " + message;
        }
    }

    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    private WorkflowValidation() {
    }

    public static List<Issue> check(WorkflowDefinition def, Collection<ActorDefinition> actors) {
        List<Issue> issues = new ArrayList<>();
        if (def.id() == null || !ID.matcher(def.id()).matches()) {
            issues.add(new Issue("id", "workflow id \"" + def.id() + "\" must be 1-128 letters, digits, '_', '-' or '.'"));
        }
        if (def.steps().isEmpty()) {
            issues.add(new Issue("steps", "workflow " + def.id() + " has no steps"));
        }
        Map<String, ActorDefinition> byActor = new HashMap<>();
        actors.forEach(a -> byActor.put(a.id(), a));
        Map<String, StepDefinition> steps = new LinkedHashMap<>();
        for (int i = 0; i < def.steps().size(); i++) {
            StepDefinition s = def.steps().get(i);
            String at = "steps[" + i + "]";
            if (s.id() == null || !ID.matcher(s.id()).matches()) {
                issues.add(new Issue(at + ".id", "step id \"" + s.id() + "\" must be 1-128 letters, digits, '_', '-' or '.'"));
                continue;
            }
            if (steps.putIfAbsent(s.id(), s) != null) {
                issues.add(new Issue(at + ".id", "duplicate step id \"" + s.id() + "\" in workflow " + def.id()));
            }
            checkActor(s, at, byActor, issues);
            checkRetry(s.retry(), at + ".retry", issues);
            checkKey(s, at, issues);
        }
        for (int i = 0; i < def.steps().size(); i++) {
            StepDefinition s = def.steps().get(i);
            for (int d = 0; d < s.dependsOn().size(); d++) {
                String dep = s.dependsOn().get(d);
                if (!steps.containsKey(dep)) {
                    issues.add(new Issue("steps[" + i + "].dependsOn[" + d + "]", "step \"" + s.id()
                            + "\" depends on unknown step \"" + dep + "\""));
                }
            }
        }
        cycle(steps).ifPresent(path -> issues.add(new Issue("steps", "workflow " + def.id()
                + " has a dependency cycle (each step depends on the next): "
                + String.join(" -> ", path))));
        for (int i = 0; i < def.triggers().size(); i++) {
            WorkflowTrigger t = def.triggers().get(i);
            String at = "triggers[" + i + "]";
            if (WorkflowTrigger.EVENT.equals(t.type()) && (t.event() == null || t.event().isBlank())) {
                issues.add(new Issue(at + ".event", "an event trigger names its event type"));
            } else if (WorkflowTrigger.SCHEDULE.equals(t.type())) {
                try {
                    if (java.time.Duration.parse(t.every()).toSeconds() < 1) {
                        issues.add(new Issue(at + ".every", "a schedule is at least PT1S"));
                    }
                } catch (RuntimeException e) {
                    issues.add(new Issue(at + ".every", "\"" + t.every() + "\" is not an ISO-8601 duration such as PT1H"));
                }
            } else if (!Set.of(WorkflowTrigger.EVENT, WorkflowTrigger.SCHEDULE, WorkflowTrigger.MANUAL).contains(t.type())) {
                issues.add(new Issue(at + ".type", "trigger type \"" + t.type() + "\" is not one of manual, event, schedule"));
            }
        }
        return issues;
    }

    private static void checkActor(StepDefinition s, String at, Map<String, ActorDefinition> actors, List<Issue> issues) {
        missingCode(s, actors).ifPresent(i -> issues.add(new Issue(at + i.field(), i.message())));
    }

    /**
     * What a step names that {@code actors} do not deploy (field {@code .actor} or {@code .expectation}
     * relative to the step), if anything.
     */
    static java.util.Optional<Issue> missingCode(StepDefinition s, Map<String, ActorDefinition> actors) {
        ActorDefinition actor = actors.get(s.actor());
        if (actor == null) {
            return java.util.Optional.of(new Issue(".actor", "step \"" + s.id() + "\" names unknown actor \"" + s.actor() + "\""));
        } else if (actor.expectation(s.expectation()).isEmpty()) {
            return java.util.Optional.of(new Issue(".expectation", "step \"" + s.id() + "\": actor \"" + s.actor()
                    + "\" has no expectation \"" + s.expectation() + "\""));
        }
        return java.util.Optional.empty();
    }

    /** A step's own concurrency key: a field path, and a limit of at least 1 with it (none without). */
    private static void checkKey(StepDefinition s, String at, List<Issue> issues) {
        if (s.concurrencyKey() != null && !io.cyclium.actor.FlowControl.isFieldPath(s.concurrencyKey())) {
            issues.add(new Issue(at + ".concurrencyKey", "step \"" + s.id() + "\": concurrencyKey \"" + s.concurrencyKey()
                    + "\" is not a payload field path: allowed are dotted names such as tenant or $.order.region"));
        }
        if (s.concurrencyKey() != null && s.concurrencyLimit() < 1) {
            issues.add(new Issue(at + ".concurrencyLimit", "step \"" + s.id() + "\": concurrencyKey \"" + s.concurrencyKey()
                    + "\" needs a concurrencyLimit of at least 1, not " + s.concurrencyLimit()));
        }
        if (s.concurrencyKey() == null && s.concurrencyLimit() != 0) {
            issues.add(new Issue(at + ".concurrencyKey", "step \"" + s.id() + "\": concurrencyLimit " + s.concurrencyLimit()
                    + " needs a concurrencyKey (the input's field whose value the limit is per)"));
        }
    }

    private static void checkRetry(RetryPolicy r, String at, List<Issue> issues) {
        if (r.maxAttempts() < 1 || r.maxAttempts() > 100) {
            issues.add(new Issue(at + ".maxAttempts", "maxAttempts must be 1..100, not " + r.maxAttempts()));
        }
        if (r.initialDelay().isNegative() || r.maxDelay().isNegative()) {
            issues.add(new Issue(at + ".initialDelay", "delays cannot be negative"));
        }
        if (r.multiplier() < 1.0 || r.multiplier() > 100.0) {
            issues.add(new Issue(at + ".multiplier", "multiplier must be 1..100, not " + r.multiplier()));
        }
        if (r.jitter() < 0.0 || r.jitter() > 1.0) {
            issues.add(new Issue(at + ".jitter", "jitter is a fraction 0..1, not " + r.jitter()));
        }
    }

    /** The first cycle found, as step ids from its start back to it; empty when the graph is a DAG. */
    static Optional<List<String>> cycle(Map<String, StepDefinition> steps) {
        Set<String> done = new HashSet<>();
        for (String start : steps.keySet()) {
            List<String> path = new ArrayList<>();
            Optional<List<String>> found = visit(start, steps, done, path, new HashSet<>());
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Optional<List<String>> visit(String id, Map<String, StepDefinition> steps, Set<String> done,
            List<String> path, Set<String> onPath) {
        if (onPath.contains(id)) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(id), path.size()));
            cycle.add(id);
            return Optional.of(cycle);
        }
        StepDefinition s = steps.get(id);
        if (s == null || done.contains(id)) {
            return Optional.empty();
        }
        path.add(id);
        onPath.add(id);
        for (String dep : s.dependsOn()) {
            Optional<List<String>> found = visit(dep, steps, done, path, onPath);
            if (found.isPresent()) {
                return found;
            }
        }
        path.remove(path.size() - 1);
        onPath.remove(id);
        done.add(id);
        return Optional.empty();
    }
}
