package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.OtlpReceiver.ReceivedSpan;
import io.cyclium.cluster.traced.TracedActor;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry traces from a real Payara Micro node, through its MicroProfile Telemetry, into a
 * collector in this JVM ({@link OtlpReceiver}): tracing on with the one setting
 * ({@code OTEL_SDK_DISABLED=false}), spans exported over OTLP/HTTP. A caller's {@code traceparent}
 * on {@code POST /events} is the root of one trace that holds the intake, the episode's run, its
 * steps, its journal writes and its output; for a workflow, the instance and under it each step's
 * episode.
 */
class TracesIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void an_event_and_a_workflow_each_leave_one_trace_from_the_callers_span_down_to_the_outputs() throws Exception {
        try (OtlpReceiver collector = OtlpReceiver.start();
                ClusterHarness cluster = ClusterHarness.on(HarnessDatabase.Vendor.POSTGRESQL)
                        .war(ClusterHarness.productWarWith("cyclium-traces-it.war", TracedActor.class))
                        .env("OTEL_SDK_DISABLED", "false")
                        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint())
                        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
                        .env("OTEL_SERVICE_NAME", "cyclium-traces-it")
                        .env("OTEL_BSP_SCHEDULE_DELAY", "200")
                        .env("OTEL_METRICS_EXPORTER", "none")
                        .env("OTEL_LOGS_EXPORTER", "none")
                        .node("node-a")
                        .start()) {
            ClusterNode node = cluster.node("node-a");

            // an event: caller → intake → episode → steps → journal writes and the output
            String trace = hex(16);
            String caller = hex(8);
            HttpReply event = node.post("/events", "{\"type\":\"traced.work\",\"id\":\"work-1\"}",
                    Map.of("traceparent", "00-" + trace + "-" + caller + "-01"));
            assertThat(event.status()).as(event.toString()).isEqualTo(202);
            String episodeId = event.jsonObject().getJsonArray("matched").getJsonObject(0).getString("id");

            List<ReceivedSpan> spans = inTrace(collector.await(finished(trace, 1), WAIT), trace);
            assertThat(spans).as("the event's trace, " + cluster.node("node-a").log()).filteredOn(ran()).hasSize(1);
            ReceivedSpan post = one(spans, "POST /cyclium/api/events");
            assertThat(post.parentSpanId()).as("the intake continues the caller's span").isEqualTo(caller);
            assertThat(post.kind()).isEqualTo("SPAN_KIND_SERVER");
            assertThat(post.service()).isEqualTo("cyclium-traces-it");
            ReceivedSpan run = one(spans, "cyclium episode traced_actor/look");
            assertThat(run.isChildOf(post)).isTrue();
            assertThat(run.attributes()).containsEntry("cyclium.actor", "traced_actor")
                    .containsEntry("cyclium.expectation", "look").containsEntry("cyclium.episode.id", episodeId)
                    .containsEntry("cyclium.attempt", "1").containsEntry("cyclium.node", "node-a")
                    .containsEntry("cyclium.trigger", "event").containsEntry("cyclium.outcome", "done");
            assertRunTree(spans, run);
            assertThat(cluster.database().query("SELECT trace_parent FROM cyclium_episodes WHERE id = ?", episodeId))
                    .as("the row keeps the intake's span: a run on any node starts under it")
                    .extracting(r -> r.get("trace_parent")).containsExactly("00-" + trace + "-" + post.spanId() + "-01");

            // a workflow: caller → intake → instance → each step's episode → its steps
            String flowTrace = hex(16);
            HttpReply flow = node.post("/events", "{\"type\":\"traced.flow\",\"id\":\"flow-1\",\"payload\":{\"subject\":\"s-1\"}}",
                    Map.of("traceparent", "00-" + flowTrace + "-" + hex(8) + "-01"));
            assertThat(flow.status()).as(flow.toString()).isEqualTo(202);

            List<ReceivedSpan> flowSpans = inTrace(collector.await(finished(flowTrace, 2), WAIT), flowTrace);
            assertThat(flowSpans).as("the workflow's trace, " + cluster.node("node-a").log()).filteredOn(ran()).hasSize(2);
            ReceivedSpan flowPost = one(flowSpans, "POST /cyclium/api/events");
            ReceivedSpan instance = one(flowSpans, "cyclium workflow traced_flow");
            assertThat(instance.isChildOf(flowPost)).isTrue();
            List<ReceivedSpan> steps = flowSpans.stream().filter(ran()).toList();
            assertThat(steps).extracting(s -> s.attribute("cyclium.workflow.step")).containsExactlyInAnyOrder("first", "second");
            for (ReceivedSpan step : steps) {
                assertThat(step.isChildOf(instance)).as("step %s's episode under the instance", step.attribute("cyclium.workflow.step"))
                        .isTrue();
                assertThat(step.attribute("cyclium.workflow.instance.id")).isEqualTo(instance.attribute("cyclium.workflow.instance.id"));
                assertThat(step.attributes()).containsEntry("cyclium.trigger", "workflow").containsEntry("cyclium.outcome", "done");
                assertRunTree(flowSpans, step);
            }
            assertThat(collector.refused()).isEmpty();
        }
    }

    /** A run of a LookThenReport episode: observe, then converge with its output, each write below its step. */
    private static void assertRunTree(List<ReceivedSpan> spans, ReceivedSpan run) {
        List<ReceivedSpan> steps = childrenOf(spans, run);
        assertThat(steps).extracting(ReceivedSpan::name).containsExactlyInAnyOrder("cyclium observe look", "cyclium converge");
        ReceivedSpan observe = steps.stream().filter(s -> s.name().equals("cyclium observe look")).findFirst().orElseThrow();
        ReceivedSpan converge = steps.stream().filter(s -> s.name().equals("cyclium converge")).findFirst().orElseThrow();
        assertThat(childrenOf(spans, observe)).extracting(ReceivedSpan::name).containsExactly("cyclium journal write");
        assertThat(childrenOf(spans, converge)).extracting(ReceivedSpan::name)
                .as("the delivery, its journal row and the terminal write")
                .containsExactlyInAnyOrder("cyclium output log", "cyclium journal write", "cyclium journal write");
        assertThat(childrenOf(spans, converge)).filteredOn(s -> s.name().equals("cyclium output log"))
                .singleElement().satisfies(o -> assertThat(o.failed()).isFalse());
    }

    /** Episode runs that ended (their outcome is set when the run span ends). */
    private static Predicate<ReceivedSpan> ran() {
        return s -> s.name().startsWith("cyclium episode ") && s.attribute("cyclium.outcome") != null;
    }

    /** {@code runs} finished runs in {@code trace}, and every span of theirs exported (a run's span ends last). */
    private static Predicate<List<ReceivedSpan>> finished(String trace, int runs) {
        return all -> inTrace(all, trace).stream().filter(ran()).count() >= runs;
    }

    private static List<ReceivedSpan> inTrace(List<ReceivedSpan> all, String trace) {
        return all.stream().filter(s -> s.traceId().equals(trace)).toList();
    }

    private static List<ReceivedSpan> childrenOf(List<ReceivedSpan> spans, ReceivedSpan parent) {
        return spans.stream().filter(s -> s.isChildOf(parent)).toList();
    }

    private static ReceivedSpan one(List<ReceivedSpan> spans, String name) {
        List<ReceivedSpan> named = spans.stream().filter(s -> s.name().equals(name)).toList();
        assertThat(named).as("spans named " + name + " among " + spans.stream().map(ReceivedSpan::name).toList()).hasSize(1);
        return named.get(0);
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HEX.formatHex(b);
    }
}
