package io.cyclium.runtime;

import java.util.List;

/** An actor as the console and the API show it on this node. */
public record ActorView(String id, String beanClass, boolean runsHere, String whyNot, String mode, int maxConcurrent,
        String overflow, List<String> stacks, int active, int queued, List<ExpectationInfo> expectations) {

    /** One expectation: its triggers, policies and breaker. */
    public record ExpectationInfo(String id, String strategy, List<String> events, String every, String cron, boolean manual,
            long debounceMs, long cooldownMs, String recovery, int maxAttempts, int maxSteps, long maxWallMs,
            int breakerThreshold, String breakerState) {
    }
}
