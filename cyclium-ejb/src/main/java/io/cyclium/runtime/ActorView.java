package io.cyclium.runtime;

import io.cyclium.actor.ActorDefinition;
import java.util.Locale;

import java.util.List;

/** An actor as the console and the API show it on this node. */
public record ActorView(String id, String beanClass, boolean runsHere, String whyNot, String mode, int maxConcurrent,
        String overflow, List<String> stacks, int active, int queued, List<ExpectationInfo> expectations, boolean paused,
        int held) {

    /** One expectation: its triggers, policies and breaker. */
    public record ExpectationInfo(String id, String strategy, List<String> events, String every, String cron, boolean manual,
            long debounceMs, long cooldownMs, String recovery, int maxAttempts, int maxSteps, long maxWallMs,
            int breakerThreshold, String breakerState, boolean paused) {
    }

    /** What this node does with a discovered actor; {@code runtime} null when it does not run here. */
    static ActorView of(ActorDefinition def, ActorRuntime runtime, String whyNot, String mode) {
        return of(def, runtime, whyNot, mode, PauseCheck.NONE);
    }

    /**
     * {@code paused}: a pause holds the whole actor (cluster-wide, as this node last read it); an
     * expectation's {@code paused} is its own pause or its actor's; {@code held}: how many of the
     * episodes queued here a pause holds back.
     */
    static ActorView of(ActorDefinition def, ActorRuntime runtime, String whyNot, String mode, PauseCheck pauses) {
        List<ExpectationInfo> exps = def.expectations().stream().map(e -> new ExpectationInfo(
                e.id(), e.strategy().getName(),
                e.events().stream().map(t -> t.filter().isEmpty() ? t.type() : t.type() + " " + t.filter()).toList(),
                e.every().map(b -> b.interval().toString()).orElse(null), e.cron().map(c -> c.spec()).orElse(null),
                e.manual(), e.debounce().toMillis(), e.cooldown().toMillis(), e.recovery().name().toLowerCase(Locale.ROOT),
                e.maxAttempts(), e.budget().maxSteps(), e.budget().maxWall().toMillis(), e.breakerThreshold(),
                runtime == null ? "none" : runtime.breakerState(e.id()), pauses.holds(def.id(), e.id()))).toList();
        return new ActorView(def.id(), def.beanClass().getName(), runtime != null, whyNot, mode,
                runtime == null ? def.maxConcurrent() : runtime.maxConcurrent(), def.overflow().name().toLowerCase(Locale.ROOT),
                List.copyOf(def.stacks()), runtime == null ? 0 : runtime.activeCount(),
                runtime == null ? 0 : runtime.queuedCount(), exps, pauses.holds(def.id(), null),
                runtime == null ? 0 : runtime.heldCount());
    }
}
