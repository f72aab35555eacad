package io.cyclium.execution;

import static io.cyclium.testing.CollectedSpans.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.actor.RecoveryPolicy;
import io.cyclium.claims.PassthroughClaimGate;
import io.cyclium.episode.Budget;
import io.cyclium.episode.Convergence;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.Step;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.Strategy;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.finding.FindingAction;
import io.cyclium.keys.EpisodeRef;
import io.cyclium.output.OutputAdapter;
import io.cyclium.output.OutputProposal;
import io.cyclium.output.OutputRouter;
import io.cyclium.output.OutputStore;
import io.cyclium.store.Jsons;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.telemetry.TraceSpan;
import io.cyclium.telemetry.Tracing;
import io.cyclium.testing.CollectedSpans;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spans of an episode's runs, made by the real OpenTelemetry SDK over a real database: one
 * span per run under the parent stored with the row, a span per step, per journal write and per
 * output delivery, and a run resumed on another node in the same trace as its first run.
 */
class EpisodeTracingTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final String EPISODE_SPAN = "cyclium episode traced_actor/traced_exp";

    private final TestJpa jpa = databases.jpa(Vendor.H2);
    private final EpisodeStore store = new EpisodeStore(jpa.vendor());
    private final CollectedSpans spans = new CollectedSpans();
    private final Tracing tracing = spans.tracing();
    private final ExpectationDefinition exp = new ExpectationDefinition("traced_actor", "traced_exp",
            EpisodeTaskTest.Scripted.class, List.of(), Optional.empty(), Optional.empty(), true, Duration.ZERO,
            Duration.ZERO, null, RecoveryPolicy.FAIL, 3, new Budget(10, Duration.ofMinutes(1)), 0, Duration.ofMinutes(1), null);

    @Test
    void a_run_is_one_span_under_the_stored_parent_with_its_steps_writes_and_output_below_it() {
        String event = eventSpan();
        EpisodeTaskTest.Scripted strategy = new EpisodeTaskTest.Scripted((s, c) -> s.step == 0
                ? Step.observe("look", ctx -> Json.createValue(7)) : Step.converge(),
                new Convergence(List.of(), List.of(OutputProposal.of("count", "out", Jsons.object().add("k", 1).build())),
                        "converged"));
        String id = insert(event);

        assertThat(run(strategy, id, false, "node-a")).isEqualTo(EpisodeTask.Outcome.FINISHED);

        SpanData run = spans.named(EPISODE_SPAN);
        assertThat(run.getTraceId()).isEqualTo(event.substring(3, 35));
        assertThat(run.getParentSpanId()).as("the run's parent is the span stored with the row").isEqualTo(event.substring(36, 52));
        assertThat(attribute(run, "cyclium.actor")).isEqualTo("traced_actor");
        assertThat(attribute(run, "cyclium.expectation")).isEqualTo("traced_exp");
        assertThat(attribute(run, "cyclium.episode.id")).isEqualTo(id);
        assertThat(attribute(run, "cyclium.attempt")).isEqualTo("1");
        assertThat(attribute(run, "cyclium.node")).isEqualTo("node-a");
        assertThat(attribute(run, "cyclium.trigger")).isEqualTo(TriggerInfo.EVENT);
        assertThat(attribute(run, "cyclium.outcome")).isEqualTo("done");
        assertThat(spans.childrenOf(run)).containsExactly("cyclium observe look", "cyclium converge");
        assertThat(spans.childrenOf(spans.named("cyclium observe look"))).containsExactly("cyclium journal write");
        assertThat(spans.childrenOf(spans.named("cyclium converge")))
                .as("the delivery, its journal row and the terminal write")
                .containsExactly("cyclium output count", "cyclium journal write", "cyclium journal write");
        assertThat(spans.all()).extracting(SpanData::getTraceId).containsOnly(run.getTraceId());
    }

    @Test
    void a_run_resumed_on_another_node_joins_the_trace_of_its_first_run_through_the_row() {
        String event = eventSpan();
        EpisodeTaskTest.Scripted strategy = new EpisodeTaskTest.Scripted((s, c) -> s.step == 0
                ? Step.waitFor("ticket-7") : Step.done("resolved"), null);
        String id = insert(event);
        assertThat(run(strategy, id, false, "node-a")).isEqualTo(EpisodeTask.Outcome.BLOCKED);
        resolveWait(id, "ticket-7");

        // node-b has nothing in memory: what it knows of the trace it reads from the row
        assertThat(run(strategy, id, true, "node-b")).isEqualTo(EpisodeTask.Outcome.FINISHED);

        List<SpanData> runs = spans.all().stream().filter(s -> s.getName().equals(EPISODE_SPAN)).toList();
        assertThat(runs).hasSize(2);
        assertThat(runs).extracting(SpanData::getTraceId).containsOnly(event.substring(3, 35));
        assertThat(runs).extracting(SpanData::getParentSpanId).containsOnly(event.substring(36, 52));
        assertThat(runs).extracting(s -> attribute(s, "cyclium.node")).containsExactly("node-a", "node-b");
        assertThat(runs).extracting(s -> attribute(s, "cyclium.outcome")).containsExactly("blocked", "done");
        assertThat(runs).extracting(s -> attribute(s, "cyclium.resumed")).containsExactly("false", "true");
        assertThat(spans.childrenOf(runs.get(0))).containsExactly("cyclium wait ticket-7");
    }

    @Test
    void with_tracing_off_no_span_is_made_and_the_row_stores_no_parent() {
        EpisodeTaskTest.Scripted strategy = new EpisodeTaskTest.Scripted((s, c) -> Step.done("quiet"), null);
        String id = insert(Tracing.OFF.parentForNewRow("cyclium trigger traced_actor"));

        EpisodeTask task = new EpisodeTask(environment(strategy, "node-a").withTracing(Tracing.OFF), id, null, false, null,
                new RunControl(id), o -> { });
        task.run();

        assertThat(task.outcome()).isEqualTo(EpisodeTask.Outcome.FINISHED);

        assertThat(jpa.inNewTransaction(em -> em.find(EpisodeEntity.class, id)).traceParent).isNull();
        assertThat(spans.all()).isEmpty();
    }

    @Test
    void a_trigger_without_a_span_gets_a_root_of_its_own_and_a_request_with_one_is_its_child() {
        String root = tracing.parentForNewRow("cyclium trigger traced_actor", "cyclium.actor", "traced_actor");
        SpanData trigger = spans.named("cyclium trigger traced_actor");
        assertThat(root).isEqualTo("00-" + trigger.getTraceId() + "-" + trigger.getSpanId() + "-"
                + trigger.getSpanContext().getTraceFlags().asHex());
        assertThat(trigger.getParentSpanContext().isValid()).isFalse();

        String incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        String stored;
        try (TraceSpan request = tracing.enter("POST /cyclium/api/events", incoming)) {
            stored = tracing.parentForNewRow("cyclium trigger traced_actor");
            assertThat(stored).isEqualTo(request.traceParent());
        }
        SpanData post = spans.named("POST /cyclium/api/events");
        assertThat(post.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(post.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(tracing.current()).as("the request's span is no longer current once closed").isNull();
    }

    @Test
    void a_malformed_stored_parent_starts_a_new_trace_instead_of_failing_the_run() {
        EpisodeTaskTest.Scripted strategy = new EpisodeTaskTest.Scripted((s, c) -> Step.done("fine"), null);
        String id = insert("not-a-traceparent");

        assertThat(run(strategy, id, false, "node-a")).isEqualTo(EpisodeTask.Outcome.FINISHED);

        assertThat(spans.named(EPISODE_SPAN).getParentSpanContext().isValid()).isFalse();
    }

    private String eventSpan() {
        try (TraceSpan event = tracing.start("POST /cyclium/api/events", null)) {
            return event.traceParent();
        }
    }

    private String insert(String traceParent) {
        String id = UUID.randomUUID().toString();
        NewEpisode e = new NewEpisode(id, "traced_actor", "traced_exp", null,
                new TriggerInfo(TriggerInfo.EVENT, "thing.happened", null, Json.createObjectBuilder().build(), null),
                "traced:" + id, 3, exp.budget(), null, false, null, null, null, null, traceParent);
        assertThat(jpa.inNewTransaction(em -> store.insert(em, e)).booleanValue()).isTrue();
        return id;
    }

    /** What an operator's resolve does: the row running again, the resolution journaled. */
    private void resolveWait(String id, String reference) {
        jpa.inNewTransaction(em -> {
            assertThat(store.unblock(em, id, EpisodeStatus.RUNNING, null)).isEqualTo(1);
            return store.journal(em, id, store.nextStepNo(em, id), StepKind.WAIT_RESOLVED, "operator",
                    Jsons.object().add("reference", reference).build(), null, null, null);
        });
    }

    private EpisodeTask.Outcome run(Strategy<?> strategy, String id, boolean resume, String node) {
        EpisodeTask task = new EpisodeTask(environment(strategy, node), id, null, resume, null, new RunControl(id), o -> { });
        task.run();
        return task.outcome();
    }

    private TaskEnvironment environment(Strategy<?> strategy, String node) {
        OutputAdapter counting = new CountingAdapter();
        MutableClock clock = new MutableClock(Instant.parse("2026-06-01T10:00:00Z"));
        OutputRouter router = new OutputRouter(jpa, new OutputStore(jpa.vendor()),
                type -> "count".equals(type) ? Optional.of(counting) : Optional.empty(), clock, Telemetry.NOOP);
        ConvergeEffects effects = new ConvergeEffects() {
            @Override
            public Effect applyFinding(FindingAction action, EpisodeRef episode, Duration ttl) {
                throw new AssertionError("no findings here");
            }

            @Override
            public Effect deliver(OutputProposal proposal, EpisodeRef episode, boolean resumedRun) {
                return ContainerConvergeEffects.ConvergeEffectsMapping.output(proposal, router.route(proposal, episode, null));
            }
        };
        StrategyLookup lookup = new OneStrategy(exp, strategy);
        return new TaskEnvironment(jpa, store, lookup, new PassthroughClaimGate(), effects, f -> { }, clock, node,
                Telemetry.NOOP).withTracing(tracing);
    }
}
