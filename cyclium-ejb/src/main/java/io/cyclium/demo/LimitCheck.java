package io.cyclium.demo;

import io.cyclium.store.Jsons;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.finding.FindingAction;
import io.cyclium.finding.Severity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;

/** The monitor's strategy: observe → checkpoint → converge (raise or clear per resource). */
@ApplicationScoped
public class LimitCheck implements Strategy<LimitCheck.State> {

    /** Checkpointed state: which resource (null = all), and what was observed. */
    public static class State {
        public String resource;
        public String phase = "start";
        public List<Reading> readings = new ArrayList<>();
    }

    public static class Reading {
        public String id;
        public int usage;
        public int limit;
    }

    @Inject
    DemoResources resources;

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public State init(TriggerInfo trigger, StepContext context) {
        State s = new State();
        s.resource = trigger.payload().getString("resource", null);
        return s;
    }

    @Override
    public Step decide(State s, StepContext context) {
        return switch (s.phase) {
            case "start" -> Step.observe("resources", ctx -> {
                JsonArrayBuilder out = Jsons.array();
                for (DemoResources.Resource r : resources.all()) {
                    if (s.resource == null || s.resource.equals(r.id())) {
                        out.add(Jsons.object().add("id", r.id()).add("usage", r.usage()).add("limit", r.limit()));
                    }
                }
                return out.build();
            });
            case "observed" -> Step.checkpoint("observed");
            default -> Step.converge();
        };
    }

    @Override
    public State onResult(State s, StepResult result, StepContext context) {
        if ("observed".equals(result.kind())) {
            for (JsonValue v : result.value().asJsonArray()) {
                JsonObject o = v.asJsonObject();
                Reading r = new Reading();
                r.id = o.getString("id");
                r.usage = o.getInt("usage");
                r.limit = o.getInt("limit");
                s.readings.add(r);
            }
            s.phase = "observed";
        } else if ("checkpointed".equals(result.kind())) {
            s.phase = "converge";
        }
        return s;
    }

    @Override
    public Convergence converge(State s, StepContext context) {
        List<FindingAction> actions = new ArrayList<>();
        int breaches = 0;
        for (Reading r : s.readings) {
            String key = "limit_breach:" + r.id;
            if (r.usage > r.limit) {
                breaches++;
                double ratio = r.usage / (double) Math.max(1, r.limit);
                Severity severity = ratio > 1.5 ? Severity.CRITICAL : ratio > 1.2 ? Severity.HIGH : Severity.MEDIUM;
                actions.add(FindingAction.raise(key, "limit_breach").withSeverity(severity)
                        .withSubject("resource", r.id)
                        .withSummary(r.id + " uses " + r.usage + " of its limit " + r.limit)
                        .withEvidence(Jsons.object().add("usage", r.usage).add("limit", r.limit).build()));
            } else {
                actions.add(FindingAction.clear(key, "usage " + r.usage + " within limit " + r.limit));
            }
        }
        return new Convergence(actions, List.of(), s.readings.size() + " resource(s) checked, " + breaches + " over the limit");
    }
}
