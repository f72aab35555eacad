package io.cyclium.demo;

import io.cyclium.store.Jsons;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.StepResult;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.output.OutputProposal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;

/** The advisor's strategy: observe the resource → ask approval for a new limit → deliver the advice. */
@ApplicationScoped
public class AdviceStrategy implements Strategy<AdviceStrategy.State> {

    public static class State {
        public String resource;
        public String findingKey;
        public String phase = "start";
        public int usage;
        public int limit;
        public int proposedLimit;
        public boolean approved;
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
        s.findingKey = trigger.payload().getString("findingKey", null);
        // limit_breach:<resource>, as the monitor names them
        s.resource = s.findingKey != null && s.findingKey.indexOf(':') > 0
                ? s.findingKey.substring(s.findingKey.indexOf(':') + 1) : null;
        return s;
    }

    @Override
    public Step decide(State s, StepContext context) {
        if (s.resource == null) {
            return Step.done("the finding names no resource");
        }
        return switch (s.phase) {
            case "start" -> Step.observe("resource", ctx -> resources.find(s.resource)
                    .<JsonValue>map(r -> Jsons.object().add("usage", r.usage()).add("limit", r.limit()).build())
                    .orElse(JsonValue.NULL));
            case "gone" -> Step.done(s.resource + " is no longer known");
            case "fine" -> Step.done(s.resource + " is back within its limit; no advice needed");
            case "plan" -> Step.requestApproval(Jsons.object()
                    .add("action", "raise_limit")
                    .add("resource", s.resource)
                    .add("currentLimit", s.limit)
                    .add("proposedLimit", s.proposedLimit)
                    .add("reason", "usage " + s.usage + " exceeds limit " + s.limit)
                    .build());
            default -> Step.converge();
        };
    }

    @Override
    public State onResult(State s, StepResult result, StepContext context) {
        switch (result.kind()) {
            case "observed" -> {
                if (result.value() == JsonValue.NULL) {
                    s.phase = "gone";
                } else {
                    JsonObject o = result.value().asJsonObject();
                    s.usage = o.getInt("usage");
                    s.limit = o.getInt("limit");
                    s.proposedLimit = (int) Math.ceil(s.usage * 1.25);
                    s.phase = s.usage > s.limit ? "plan" : "fine";
                }
            }
            case "approved" -> {
                s.approved = true;
                s.phase = "converge";
            }
            default -> {
            }
        }
        return s;
    }

    @Override
    public Convergence converge(State s, StepContext context) {
        JsonObject advice = Jsons.object()
                .add("resource", s.resource)
                .add("currentLimit", s.limit)
                .add("proposedLimit", s.proposedLimit)
                .add("finding", s.findingKey == null ? "" : s.findingKey)
                .build();
        return new Convergence(List.of(), List.of(OutputProposal.of("database", "advice", advice),
                OutputProposal.of("log", "advice", advice)),
                "advised raising " + s.resource + " from " + s.limit + " to " + s.proposedLimit);
    }
}
