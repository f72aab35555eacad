package io.cyclium.workflow;

import jakarta.json.JsonObject;
import java.util.List;

/** One instance with its payload, steps (in definition order), transition journal and statistics. */
public record InstanceDetail(InstanceView instance, JsonObject payload, List<StepView> steps,
        List<TransitionRow> transitions, JsonObject stats) {
}
