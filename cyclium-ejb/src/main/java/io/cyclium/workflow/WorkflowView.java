package io.cyclium.workflow;

import jakarta.json.JsonObject;
import java.time.LocalDateTime;
import java.util.Map;

/**
 * A workflow for the API and console: its definition document, where it came from, whether it may
 * start instances, its instances by status, the last start and the success rate (completed over
 * finished; null before any finished). {@code version} is the definition's current version, the one
 * new instances start with (every instance keeps running the version it started with).
 */
public record WorkflowView(String id, String origin, boolean enabled, LocalDateTime updatedAt, long version, JsonObject definition,
        Map<String, Long> instancesByStatus, LocalDateTime lastStartedAt, Double successRate, boolean paused) {
}
