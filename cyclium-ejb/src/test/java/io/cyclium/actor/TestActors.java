package io.cyclium.actor;

import io.cyclium.timing.CronSchedule;
import io.cyclium.timing.ScheduleBuckets;
import io.cyclium.episode.Budget;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepContext;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/** Builds validated actor definitions in code, with the annotations' defaults, for runtime tests. */
public final class TestActors {

    private TestActors() {
    }

    public static ActorDefinition actor(String id, Overflow overflow, ExpectationBuilder... expectations) {
        List<ExpectationDefinition> built = new ArrayList<>();
        for (ExpectationBuilder e : expectations) {
            built.add(e.build(id));
        }
        return new ActorDefinition(id, TestActors.class, 0, overflow, new LinkedHashSet<>(), null, List.copyOf(built));
    }

    public static ExpectationBuilder expectation(String id) {
        return new ExpectationBuilder(id);
    }

    /** A strategy class for definitions; runtime tests never run it. */
    public static final class IdleStrategy implements Strategy<Object> {
        @Override
        public Class<Object> stateType() {
            return Object.class;
        }

        @Override
        public Object init(TriggerInfo trigger, StepContext context) {
            throw new UnsupportedOperationException("runtime tests do not run strategies");
        }

        @Override
        public Step decide(Object state, StepContext context) {
            throw new UnsupportedOperationException("runtime tests do not run strategies");
        }
    }

    public static final class ExpectationBuilder {
        private final String id;
        private final List<EventTrigger> events = new ArrayList<>();
        private Optional<ScheduleBuckets> every = Optional.empty();
        private Optional<CronSchedule> cron = Optional.empty();
        private Duration debounce = Duration.ZERO;
        private Duration cooldown = Duration.ZERO;
        private String subjectKey;
        private int breakerThreshold;
        private Duration breakerHalfOpenAfter = Duration.ofMinutes(1);

        private ExpectationBuilder(String id) {
            this.id = id;
        }

        public ExpectationBuilder on(String type, String... filter) {
            events.add(new EventTrigger(type, PayloadFilter.parse(filter)));
            return this;
        }

        public ExpectationBuilder every(Duration interval) {
            every = Optional.of(ScheduleBuckets.every(interval));
            return this;
        }

        public ExpectationBuilder cron(String spec) {
            cron = Optional.of(CronSchedule.parse(spec));
            return this;
        }

        public ExpectationBuilder debounce(Duration window, String subjectKey) {
            this.debounce = window;
            this.subjectKey = subjectKey;
            return this;
        }

        public ExpectationBuilder cooldown(Duration gap, String subjectKey) {
            this.cooldown = gap;
            this.subjectKey = subjectKey;
            return this;
        }

        public ExpectationBuilder breaker(int threshold, Duration halfOpenAfter) {
            this.breakerThreshold = threshold;
            this.breakerHalfOpenAfter = halfOpenAfter;
            return this;
        }

        public ExpectationDefinition build(String actorId) {
            return new ExpectationDefinition(actorId, id, IdleStrategy.class, List.copyOf(events), every, cron, true,
                    debounce, cooldown, subjectKey, RecoveryPolicy.FAIL, 3, new Budget(50, Duration.ofMinutes(2)),
                    breakerThreshold, breakerHalfOpenAfter, null);
        }
    }
}
