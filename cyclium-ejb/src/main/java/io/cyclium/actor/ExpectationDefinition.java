package io.cyclium.actor;

import io.cyclium.timing.CronSchedule;
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
        Duration findingTtl) {

    public String qualifiedId() {
        return actorId + "/" + id;
    }

    public boolean hasBreaker() {
        return breakerThreshold > 0;
    }
}
