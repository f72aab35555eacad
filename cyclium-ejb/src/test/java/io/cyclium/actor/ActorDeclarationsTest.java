package io.cyclium.actor;

import io.cyclium.timing.RetryPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.TestActors.IdleStrategy;
import io.cyclium.actor.trigger.TestJson;
import io.cyclium.episode.Budget;
import io.cyclium.episode.Strategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ActorDeclarationsTest {

    // ---- the actors under test -------------------------------------------------------------------

    @Actor(id = "resource_monitor", stacks = "blue", specRev = "r7")
    @Expectation(id = "check_limits", strategy = IdleStrategy.class,
            events = {
                @OnEvent(type = "resource.updated", filter = {"kind in (cpu, memory)", "resource.limit=10"}),
                @OnEvent(type = "resource.created")},
            every = "PT1H", cron = "*/15 * * * *", manual = false, debounceMs = 5_000, cooldownMs = 60_000,
            subjectKey = "resource.id", recovery = RecoveryPolicy.RESTART, maxAttempts = 5, maxSteps = 20,
            maxWallMs = 30_000, circuitBreakerThreshold = 3, circuitBreakerHalfOpenAfterMs = 45_000,
            findingTtlSeconds = 3_600)
    @Expectation(id = "recheck", strategy = IdleStrategy.class)
    static class ResourceMonitor {
    }

    @Actor(id = "versioned")
    @Expectation(id = "current", strategy = IdleStrategy.class, version = "2026.12-b")
    @Expectation(id = "spaced", strategy = IdleStrategy.class, version = "two words")
    static class Versioned {
    }

    @Actor(id = "capped", maxConcurrentEpisodes = 4, overflow = Overflow.SHED_OLDEST)
    @Expectation(id = "run", strategy = IdleStrategy.class)
    static class Capped {
    }

    @Actor(id = "nightly")
    @Expectation(id = "report", strategy = IdleStrategy.class, cron = "61 * * * *")
    static class BadCron {
    }

    @Actor(id = "never")
    @Expectation(id = "leap", strategy = IdleStrategy.class, cron = "0 0 30 2 *")
    static class CronThatNeverFires {
    }

    @Actor(id = "hourly")
    @Expectation(id = "sweep", strategy = IdleStrategy.class, every = "1h")
    static class BadEvery {
    }

    interface CheckStrategy extends Strategy<Object> {
    }

    abstract static class BaseCheck implements Strategy<Object> {
    }

    @Actor(id = "abstracted")
    @Expectation(id = "via_interface", strategy = CheckStrategy.class)
    @Expectation(id = "via_abstract", strategy = BaseCheck.class)
    static class AbstractStrategies {
    }

    @Actor(id = "twice")
    @Expectation(id = "same", strategy = IdleStrategy.class)
    @Expectation(id = "same", strategy = IdleStrategy.class, every = "PT1M")
    static class DuplicateExpectations {
    }

    @Actor(id = "shared_id")
    @Expectation(id = "one", strategy = IdleStrategy.class)
    static class FirstWithSharedId {
    }

    @Actor(id = "shared_id")
    @Expectation(id = "two", strategy = IdleStrategy.class)
    static class SecondWithSharedId {
    }

    @Actor(id = "deaf")
    @Expectation(id = "unreachable", strategy = IdleStrategy.class, manual = false)
    static class NoTrigger {
    }

    @Actor(id = "impatient")
    @Expectation(id = "load", strategy = IdleStrategy.class, events = @OnEvent(type = "host.load"),
            debounceMs = -1, cooldownMs = -5)
    static class NegativeWindows {
    }

    @Actor(id = "hopeless")
    @Expectation(id = "never_runs", strategy = IdleStrategy.class, maxAttempts = 0)
    static class NoAttempts {
    }

    @Actor(id = "my actor")
    @Expectation(id = "fine", strategy = IdleStrategy.class)
    static class ActorIdWithSpace {
    }

    @Actor(id = "persistent")
    @Expectation(id = "flaky", strategy = IdleStrategy.class, retry = @Retry(maxAttempts = 4, initialDelayMs = 500,
            multiplier = 3.0, maxDelayMs = 60_000, jitter = 0.2, nonRetryable = {"invalid_input"}))
    static class Retrying {
    }

    @Actor(id = "reckless")
    @Expectation(id = "bad_retry", strategy = IdleStrategy.class, retry = @Retry(maxAttempts = 0, multiplier = 0.5,
            jitter = 1.5, initialDelayMs = -1))
    static class BadRetry {
    }

    @Actor(id = "spaced")
    @Expectation(id = "check limits", strategy = IdleStrategy.class)
    static class ExpectationIdWithSpace {
    }

    @Actor(id = "filtered")
    @Expectation(id = "cpu_only", strategy = IdleStrategy.class, events = @OnEvent(type = "resource.updated", filter = "kind"))
    static class BadFilter {
    }

    @Actor(id = "idle")
    static class NoExpectations {
    }

    static class NotAnActor {
    }

    private static List<String> problemsOf(Class<?> actorClass) {
        List<String> problems = new ArrayList<>();
        Optional<ActorDefinition> read = ActorDeclarations.read(actorClass, problems);
        assertThat(read).as("an invalid actor yields no definition").isEmpty();
        return problems;
    }

    // ---- a valid actor ---------------------------------------------------------------------------

    @Test
    void a_valid_actor_reads_into_its_definition() {
        List<String> problems = new ArrayList<>();

        ActorDefinition actor = ActorDeclarations.read(ResourceMonitor.class, problems).orElseThrow();

        assertThat(problems).isEmpty();
        assertThat(actor.id()).isEqualTo("resource_monitor");
        assertThat(actor.beanClass()).isEqualTo(ResourceMonitor.class);
        assertThat(actor.maxConcurrent()).as("0 = the node default").isZero();
        assertThat(actor.overflow()).isEqualTo(Overflow.QUEUE);
        assertThat(actor.stacks()).containsExactly("blue");
        assertThat(actor.specRev()).isEqualTo("r7");
        assertThat(actor.expectations()).extracting(ExpectationDefinition::id).containsExactly("check_limits", "recheck");
    }

    @Test
    void every_declared_field_of_an_expectation_is_read() {
        ExpectationDefinition e = ActorDeclarations.read(ResourceMonitor.class, new ArrayList<>()).orElseThrow()
                .expectation("check_limits").orElseThrow();

        assertThat(e.actorId()).isEqualTo("resource_monitor");
        assertThat(e.qualifiedId()).isEqualTo("resource_monitor/check_limits");
        assertThat(e.strategy()).isEqualTo(IdleStrategy.class);
        assertThat(e.events()).extracting(EventTrigger::type).containsExactly("resource.updated", "resource.created");
        EventTrigger updated = e.events().get(0);
        assertThat(updated.filter().matches(TestJson.object("{\"kind\":\"memory\",\"resource\":{\"limit\":10}}"))).isTrue();
        assertThat(updated.filter().matches(TestJson.object("{\"kind\":\"disk\",\"resource\":{\"limit\":10}}"))).isFalse();
        assertThat(updated.filter().matches(TestJson.object("{\"kind\":\"cpu\",\"resource\":{\"limit\":11}}"))).isFalse();
        assertThat(e.events().get(1).filter().matches(TestJson.object("{}"))).isTrue();
        assertThat(e.every()).hasValueSatisfying(b -> assertThat(b.interval()).isEqualTo(Duration.ofHours(1)));
        assertThat(e.cron()).hasValueSatisfying(c -> assertThat(c.spec()).isEqualTo("*/15 * * * *"));
        assertThat(e.manual()).isFalse();
        assertThat(e.debounce()).isEqualTo(Duration.ofSeconds(5));
        assertThat(e.cooldown()).isEqualTo(Duration.ofMinutes(1));
        assertThat(e.subjectKey()).isEqualTo("resource.id");
        assertThat(e.recovery()).isEqualTo(RecoveryPolicy.RESTART);
        assertThat(e.maxAttempts()).isEqualTo(5);
        assertThat(e.budget()).isEqualTo(new Budget(20, Duration.ofSeconds(30)));
        assertThat(e.breakerThreshold()).isEqualTo(3);
        assertThat(e.hasBreaker()).isTrue();
        assertThat(e.breakerHalfOpenAfter()).isEqualTo(Duration.ofSeconds(45));
        assertThat(e.findingTtl()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void an_expectation_that_declares_only_its_strategy_gets_the_defaults() {
        ExpectationDefinition e = ActorDeclarations.read(ResourceMonitor.class, new ArrayList<>()).orElseThrow()
                .expectation("recheck").orElseThrow();

        assertThat(e.events()).isEmpty();
        assertThat(e.every()).isEmpty();
        assertThat(e.cron()).isEmpty();
        assertThat(e.manual()).isTrue();
        assertThat(e.debounce()).isZero();
        assertThat(e.cooldown()).isZero();
        assertThat(e.subjectKey()).isNull();
        assertThat(e.recovery()).isEqualTo(RecoveryPolicy.FAIL);
        assertThat(e.maxAttempts()).isEqualTo(3);
        assertThat(e.budget()).isEqualTo(new Budget(50, Duration.ofMinutes(2)));
        assertThat(e.hasBreaker()).isFalse();
        assertThat(e.breakerHalfOpenAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(e.findingTtl()).isNull();
        assertThat(e.retry()).as("no retry unless declared").isEqualTo(RetryPolicy.NONE);
    }

    @Test
    void a_declared_retry_becomes_the_expectations_retry_policy() {
        ExpectationDefinition e = ActorDeclarations.read(Retrying.class, new ArrayList<>()).orElseThrow()
                .expectation("flaky").orElseThrow();

        assertThat(e.retry()).isEqualTo(new RetryPolicy(4, Duration.ofMillis(500), 3.0, Duration.ofMinutes(1), 0.2,
                java.util.Set.of("invalid_input")));
    }

    @Test
    void each_bad_retry_field_is_reported_by_name() {
        assertThat(problemsOf(BadRetry.class)).satisfiesExactlyInAnyOrder(
                p -> assertThat(p).contains("actor \"reckless\"", "expectation \"bad_retry\"", "retry.maxAttempts = 0"),
                p -> assertThat(p).contains("retry.initialDelayMs = -1"),
                p -> assertThat(p).contains("retry.multiplier = 0.5"),
                p -> assertThat(p).contains("retry.jitter = 1.5"));
    }

    @Test
    void declared_slots_and_overflow_are_read_and_no_stacks_means_every_stack() {
        ActorDefinition actor = ActorDeclarations.read(Capped.class, new ArrayList<>()).orElseThrow();

        assertThat(actor.maxConcurrent()).isEqualTo(4);
        assertThat(actor.overflow()).isEqualTo(Overflow.SHED_OLDEST);
        assertThat(actor.stacks()).isEmpty();
        assertThat(actor.runsOnStack("green")).isTrue();
        assertThat(actor.specRev()).isNull();
    }

    @Test
    void read_all_returns_every_valid_actor() {
        List<String> problems = new ArrayList<>();

        List<ActorDefinition> actors = ActorDeclarations.readAll(List.of(ResourceMonitor.class, Capped.class), problems);

        assertThat(problems).isEmpty();
        assertThat(actors).extracting(ActorDefinition::id).containsExactly("resource_monitor", "capped");
    }

    // ---- invalid declarations --------------------------------------------------------------------

    @Test
    void an_expectation_s_version_is_read_and_one_that_is_not_a_plain_name_is_refused_naming_it() {
        assertThat(problemsOf(Versioned.class)).singleElement().asString()
                .contains("actor \"versioned\"", "expectation \"spaced\"", "version \"two words\"");
        assertThat(ActorDeclarations.read(ResourceMonitor.class, new ArrayList<>()).orElseThrow().expectation("recheck")
                .orElseThrow().version()).as("unversioned").isNull();
    }

    @Actor(id = "versioned")
    @Expectation(id = "current", strategy = IdleStrategy.class, version = "2026.12-b")
    static class VersionedWell {
    }

    @Actor(id = "exporter", clusterMaxConcurrentEpisodes = 20)
    @Expectation(id = "export", strategy = IdleStrategy.class, concurrencyKey = "$.tenant", concurrencyLimit = 2,
            priority = 3, priorityField = "order.priority")
    static class FlowControlled {
    }

    @Actor(id = "careless", clusterMaxConcurrentEpisodes = -1)
    @Expectation(id = "no_limit", strategy = IdleStrategy.class, concurrencyKey = "tenant")
    @Expectation(id = "no_key", strategy = IdleStrategy.class, concurrencyLimit = 2)
    @Expectation(id = "bad_path", strategy = IdleStrategy.class, concurrencyKey = "a..b", concurrencyLimit = 1,
            priorityField = "has space")
    static class BadFlowControl {
    }

    @Test
    void a_concurrency_key_its_limit_the_cluster_limit_and_priorities_are_read() {
        ActorDefinition actor = ActorDeclarations.read(FlowControlled.class, new ArrayList<>()).orElseThrow();
        assertThat(actor.clusterMaxConcurrent()).isEqualTo(20);
        FlowControl flow = actor.expectation("export").orElseThrow().flow();
        assertThat(flow).isEqualTo(new FlowControl("tenant", 2, 3, "order.priority", 0, java.time.Duration.ofSeconds(1)));
        assertThat(flow.rateLimited()).isFalse();
        assertThat(flow.keyOf(jakarta.json.Json.createObjectBuilder().add("tenant", "t-1").build())).isEqualTo("t-1");
        assertThat(flow.keyOf(jakarta.json.JsonValue.EMPTY_JSON_OBJECT)).isEqualTo(FlowControl.NO_KEY);
        assertThat(flow.priorityOf(jakarta.json.Json.createObjectBuilder().add("order", jakarta.json.Json.createObjectBuilder()
                .add("priority", 9)).build())).as("the trigger's own").isEqualTo(9);
        assertThat(flow.priorityOf(jakarta.json.JsonValue.EMPTY_JSON_OBJECT)).as("the expectation's").isEqualTo(3);
        assertThat(ActorDeclarations.read(ResourceMonitor.class, new ArrayList<>()).orElseThrow().flowControlled())
                .as("nothing declared").isFalse();
    }

    @Test
    void a_limit_without_a_key_a_key_without_a_limit_and_a_bad_field_path_are_each_refused_by_name() {
        assertThat(problemsOf(BadFlowControl.class)).satisfiesExactlyInAnyOrder(
                p -> assertThat(p).contains("\"no_limit\"", "concurrencyKey = \"tenant\" needs concurrencyLimit"),
                p -> assertThat(p).contains("\"no_key\"", "concurrencyLimit = 2 needs a concurrencyKey"),
                p -> assertThat(p).contains("\"bad_path\"", "concurrencyKey = \"a..b\" is not a payload field path"),
                p -> assertThat(p).contains("\"bad_path\"", "priorityField = \"has space\""),
                p -> assertThat(p).contains("clusterMaxConcurrentEpisodes = -1"));
    }

    public static final class TenantOfOrder implements ConcurrencyKeyFunction {
        @Override
        public String keyOf(io.cyclium.episode.TriggerInfo trigger) {
            return trigger.payload().getString("tenant", null);
        }
    }

    public abstract static class AbstractKey implements ConcurrencyKeyFunction {
    }

    @Actor(id = "keyed")
    @Expectation(id = "by_function", strategy = IdleStrategy.class, concurrencyKeyFunction = TenantOfOrder.class,
            concurrencyLimit = 3)
    @Expectation(id = "rated_per_key", strategy = IdleStrategy.class, concurrencyKey = "tenant", rateLimit = 5,
            ratePeriodMs = 60_000, rateLimitPerKey = true)
    static class KeyedWell {
    }

    @Actor(id = "keyed_badly")
    @Expectation(id = "both", strategy = IdleStrategy.class, concurrencyKey = "tenant",
            concurrencyKeyFunction = TenantOfOrder.class, concurrencyLimit = 1)
    @Expectation(id = "abstract_function", strategy = IdleStrategy.class, concurrencyKeyFunction = AbstractKey.class,
            concurrencyLimit = 1)
    @Expectation(id = "per_key_without_key", strategy = IdleStrategy.class, rateLimit = 5, rateLimitPerKey = true)
    @Expectation(id = "per_key_without_rate", strategy = IdleStrategy.class, concurrencyKey = "tenant", rateLimitPerKey = true)
    static class KeyedBadly {
    }

    @Test
    void a_key_function_and_a_rate_per_key_are_read() {
        ActorDefinition actor = ActorDeclarations.read(KeyedWell.class, new ArrayList<>()).orElseThrow();
        FlowControl byFunction = actor.expectation("by_function").orElseThrow().flow();
        assertThat(byFunction.keyFunction()).isEqualTo(TenantOfOrder.class);
        assertThat(byFunction.limited()).isTrue();
        assertThat(byFunction.keySource()).isEqualTo("TenantOfOrder()");
        FlowControl rated = actor.expectation("rated_per_key").orElseThrow().flow();
        assertThat(rated.ratePerKey()).isTrue();
        assertThat(rated.limited()).as("a key only for its rate: no concurrency limit").isFalse();
        assertThat(rated.keyOf(jakarta.json.Json.createObjectBuilder().add("tenant", "t-1").build())).isEqualTo("t-1");
    }

    @Test
    void a_key_from_both_a_path_and_a_function_an_abstract_function_and_a_rate_per_key_without_key_or_rate_are_refused() {
        assertThat(problemsOf(KeyedBadly.class)).satisfiesExactlyInAnyOrder(
                p -> assertThat(p).contains("\"both\"", "concurrencyKey and concurrencyKeyFunction are both set"),
                p -> assertThat(p).contains("\"abstract_function\"", "must be a class implementing ConcurrencyKeyFunction"),
                p -> assertThat(p).contains("\"per_key_without_key\"", "rateLimitPerKey = true needs a concurrencyKey"),
                p -> assertThat(p).contains("\"per_key_without_rate\"", "rateLimitPerKey = true needs a rateLimit of at least 1"));
    }

    @Test
    void a_declared_version_is_the_expectation_s_version() {
        assertThat(ActorDeclarations.read(VersionedWell.class, new ArrayList<>()).orElseThrow().expectation("current")
                .orElseThrow().version()).isEqualTo("2026.12-b");
    }

    @Test
    void a_bad_cron_names_actor_expectation_and_the_cron_problem() {
        assertThat(problemsOf(BadCron.class)).singleElement().asString()
                .contains("actor \"nightly\"", BadCron.class.getName(), "expectation \"report\"",
                        "cron \"61 * * * *\"", "minute");
    }

    @Test
    void a_cron_that_never_fires_is_a_bad_cron() {
        assertThat(problemsOf(CronThatNeverFires.class)).singleElement().asString()
                .contains("actor \"never\"", "expectation \"leap\"", "cron \"0 0 30 2 *\"", "no matching time");
    }

    @Test
    void an_every_that_is_not_an_iso_8601_duration_names_actor_and_expectation() {
        assertThat(problemsOf(BadEvery.class)).singleElement().asString()
                .contains("actor \"hourly\"", "expectation \"sweep\"", "every = \"1h\"", "ISO-8601");
    }

    @Test
    void an_interface_or_abstract_strategy_is_not_a_concrete_class() {
        assertThat(problemsOf(AbstractStrategies.class)).satisfiesExactly(
                p -> assertThat(p).contains("actor \"abstracted\"", "expectation \"via_interface\"",
                        CheckStrategy.class.getName(), "is not a concrete class"),
                p -> assertThat(p).contains("actor \"abstracted\"", "expectation \"via_abstract\"",
                        BaseCheck.class.getName(), "is not a concrete class"));
    }

    @Test
    void a_duplicate_expectation_id_names_actor_and_expectation() {
        assertThat(problemsOf(DuplicateExpectations.class)).singleElement().asString()
                .contains("actor \"twice\"", "expectation \"same\"", "duplicate expectation id");
    }

    @Test
    void two_classes_with_one_actor_id_fail_read_all_naming_the_second_class() {
        List<String> problems = new ArrayList<>();

        List<ActorDefinition> actors = ActorDeclarations.readAll(
                List.of(FirstWithSharedId.class, SecondWithSharedId.class), problems);

        assertThat(actors).extracting(ActorDefinition::beanClass).containsExactly(FirstWithSharedId.class);
        assertThat(problems).singleElement().asString()
                .contains("actor \"shared_id\"", SecondWithSharedId.class.getName(), "duplicate actor id");
    }

    @Test
    void an_expectation_with_no_trigger_and_no_manual_start_names_actor_and_expectation() {
        assertThat(problemsOf(NoTrigger.class)).singleElement().asString()
                .contains("actor \"deaf\"", "expectation \"unreachable\"", "has no trigger");
    }

    @Test
    void negative_debounce_and_cooldown_are_each_reported() {
        assertThat(problemsOf(NegativeWindows.class)).satisfiesExactly(
                p -> assertThat(p).contains("actor \"impatient\"", "expectation \"load\"", "debounceMs = -1"),
                p -> assertThat(p).contains("actor \"impatient\"", "expectation \"load\"", "cooldownMs = -5"));
    }

    @Test
    void max_attempts_zero_names_actor_and_expectation() {
        assertThat(problemsOf(NoAttempts.class)).singleElement().asString()
                .contains("actor \"hopeless\"", "expectation \"never_runs\"", "maxAttempts = 0 must be at least 1");
    }

    @Test
    void an_actor_id_with_a_space_is_not_allowed() {
        assertThat(problemsOf(ActorIdWithSpace.class)).singleElement().asString()
                .contains("actor \"my actor\"", "id is not allowed")
                .doesNotContain("expectation");
    }

    @Test
    void an_expectation_id_with_a_space_is_not_allowed() {
        assertThat(problemsOf(ExpectationIdWithSpace.class)).singleElement().asString()
                .contains("actor \"spaced\"", "expectation \"check limits\"", "id is not allowed");
    }

    @Test
    void a_payload_filter_that_does_not_parse_names_actor_expectation_and_event() {
        assertThat(problemsOf(BadFilter.class)).singleElement().asString()
                .contains("actor \"filtered\"", "expectation \"cpu_only\"", "event \"resource.updated\" filter",
                        "kind");
    }

    @Test
    void an_actor_without_expectations_names_the_actor() {
        assertThat(problemsOf(NoExpectations.class)).singleElement().asString()
                .contains("actor \"idle\"", NoExpectations.class.getName(), "declares no @Expectation");
    }

    @Test
    void a_class_without_actor_names_the_class() {
        assertThat(problemsOf(NotAnActor.class)).singleElement().asString()
                .contains(NotAnActor.class.getName(), "not annotated with @Actor");
    }

    @Test
    void read_all_collects_the_problems_of_every_class_and_keeps_the_valid_ones() {
        List<String> problems = new ArrayList<>();

        List<ActorDefinition> actors = ActorDeclarations.readAll(
                List.of(BadCron.class, Capped.class, NoAttempts.class), problems);

        assertThat(actors).extracting(ActorDefinition::id).containsExactly("capped");
        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).contains("actor \"nightly\"");
        assertThat(problems.get(1)).contains("actor \"hopeless\"");
    }
}
