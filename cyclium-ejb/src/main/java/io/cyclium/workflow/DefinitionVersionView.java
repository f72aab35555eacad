package io.cyclium.workflow;

import jakarta.json.JsonObject;
import java.time.LocalDateTime;

/**
 * One stored version of a workflow's definition for the API and console: its number, where it came
 * from (code or api), when it was stored, whether it is the current one (what new instances start
 * with), how many instances in flight still run it, and its document.
 */
public record DefinitionVersionView(String workflowId, long version, String origin, LocalDateTime createdAt,
        boolean current, long instancesInFlight, JsonObject definition) {
}
