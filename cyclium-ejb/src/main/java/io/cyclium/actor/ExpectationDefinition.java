package io.cyclium.actor;

import io.cyclium.timing.CronSchedule;
import io.cyclium.timing.RetryPolicy;
import io.cyclium.timing.ScheduleBuckets;
import io.cyclium.episode.Budget;
import io.cyclium.episode.Strategy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** An expectation after validation: everything the runtime needs, in typed form. */
public record ExpectationDefinition(
        String actorId,
        String id,
        @SuppressWarnings("rawtypes") Class<? extends Strategy> strategy,
        List<EventTrigger> events,
        Optional<ScheduleBuckets> every,
        Optional<CronSchedule> cron,
        boolean manual,
        Duration debounce,
        Duration cooldown,
        String subjectKey,
        RecoveryPolicy recovery,
        int maxAttempts,
        Budget budget,
        int breakerThreshold,
        Duration breakerHalfOpenAfter,
        Duration findingTtl,
        RetryPolicy retry,
        String version,
        FlowControl flow) {

    /** Without flow control ({@link FlowControl#NONE}): no cluster-wide limit, priority 0. */
    public ExpectationDefinition(String actorId, String id, @SuppressWarnings("rawtypes") Class<? extends Strategy> strategy,
            List<EventTrigger> events, Optional<ScheduleBuckets> every, Optional<CronSchedule> cron, boolean manual,
            Duration debounce, Duration cooldown, String subjectKey, RecoveryPolicy recovery, int maxAttempts,
            Budget budget, int breakerThreshold, Duration breakerHalfOpenAfter, Duration findingTtl, RetryPolicy retry,
            String version) {
        this(actorId, id, strategy, events, every, cron, manual, debounce, cooldown, subjectKey, recovery, maxAttempts,
                budget, breakerThreshold, breakerHalfOpenAfter, findingTtl, retry, version, FlowControl.NONE);
    }

    public ExpectationDefinition {
        flow = flow == null ? FlowControl.NONE : flow;
    }

    /** The same expectation with {@code flow} instead. */
    public ExpectationDefinition withFlow(FlowControl flow) {
        return new ExpectationDefinition(actorId, id, strategy, events, every, cron, manual, debounce, cooldown, subjectKey,
                recovery, maxAttempts, budget, breakerThreshold, breakerHalfOpenAfter, findingTtl, retry, version, flow);
    }

    /** Unversioned ({@code @Expectation(version)} empty): recovery resumes its episodes on any node that runs it. */
    public ExpectationDefinition(String actorId, String id, @SuppressWarnings("rawtypes") Class<? extends Strategy> strategy,
            List<EventTrigger> events, Optional<ScheduleBuckets> every, Optional<CronSchedule> cron, boolean manual,
            Duration debounce, Duration cooldown, String subjectKey, RecoveryPolicy recovery, int maxAttempts,
            Budget budget, int breakerThreshold, Duration breakerHalfOpenAfter, Duration findingTtl, RetryPolicy retry) {
        this(actorId, id, strategy, events, every, cron, manual, debounce, cooldown, subjectKey, recovery, maxAttempts,
                budget, breakerThreshold, breakerHalfOpenAfter, findingTtl, retry, null);
    }

    /** Without a retry policy: a failed episode ends for good. */
    public ExpectationDefinition(String actorId, String id, @SuppressWarnings("rawtypes") Class<? extends Strategy> strategy,
            List<EventTrigger> events, Optional<ScheduleBuckets> every, Optional<CronSchedule> cron, boolean manual,
            Duration debounce, Duration cooldown, String subjectKey, RecoveryPolicy recovery, int maxAttempts,
            Budget budget, int breakerThreshold, Duration breakerHalfOpenAfter, Duration findingTtl) {
        this(actorId, id, strategy, events, every, cron, manual, debounce, cooldown, subjectKey, recovery, maxAttempts,
                budget, breakerThreshold, breakerHalfOpenAfter, findingTtl, RetryPolicy.NONE);
    }

    public String qualifiedId() {
        return actorId + "/" + id;
    }

    public boolean hasBreaker() {
        return breakerThreshold > 0;
    }
}
