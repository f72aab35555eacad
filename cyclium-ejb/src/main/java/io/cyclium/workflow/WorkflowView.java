package io.cyclium.workflow;

import jakarta.json.JsonObject;
import java.time.LocalDateTime;
import java.util.Map;

/**
 * A workflow for the API and console: its definition document, where it came from, whether it may
 * start instances, its instances by status, the last start and the success rate (completed over
 * finished; null before any finished).
 */
public record WorkflowView(String id, String origin, boolean enabled, LocalDateTime updatedAt, JsonObject definition,
        Map<String, Long> instancesByStatus, LocalDateTime lastStartedAt, Double successRate) {
}
