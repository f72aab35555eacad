package io.cyclium.servers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.cluster.OtlpReceiver;
import io.cyclium.cluster.OtlpReceiver.ReceivedSpan;
import io.cyclium.servers.ServerDatabase.Kind;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Traces through a full server's own MicroProfile Telemetry: the product EAR on WildFly and on
 * Payara Server, each set up by its server-config scripts alone, with the one setting on
 * ({@code OTEL_SDK_DISABLED=false}) and the exporter aimed at a collector in this JVM
 * ({@link OtlpReceiver}, OTLP/HTTP). An event carrying a caller's {@code traceparent} leaves one
 * trace: the intake under the caller's span, the episode's run under the intake, its steps under
 * the run and its journal writes under the steps. (Payara Micro's is TracesIT in the web module.)
 */
@ExtendWith(MatrixRotation.class)
class ServerTracesIT {

    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    @Tag("matrix")
    void wildfly_exports_an_events_trace_through_its_microprofile_telemetry() throws Exception {
        traced("wildfly");
    }

    @Test
    @Tag("matrix")
    void payara_server_exports_an_events_trace_through_its_microprofile_telemetry() throws Exception {
        traced("payara");
    }

    private void traced(String kind) throws Exception {
        String cell = kind + "-traces";
        Path dir = EarSmokeIT.SERVERS.resolve("runs").resolve(cell + "-" + UUID.randomUUID().toString().substring(0, 6));
        try (OtlpReceiver collector = OtlpReceiver.start();
             ServerDatabase db = ServerDatabase.create(Kind.H2, dir);
             FullServer server = EarSmokeIT.server(kind, cell, dir, db, Map.of("cyclium.demo.enabled", "true"))) {
            // the server's environment, as an operator exports it before create-domain.sh / start.sh
            server.env.putAll(Map.of(
                    "OTEL_SDK_DISABLED", "false",
                    "OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint(),
                    "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                    "OTEL_BSP_SCHEDULE_DELAY", "200",
                    "OTEL_METRICS_EXPORTER", "none",
                    "OTEL_LOGS_EXPORTER", "none"));
            server.install(EarSmokeIT.smokeArchive(kind, dir));

            String trace = hex(16);
            String caller = hex(8);
            HttpResponse<String> r = server.post("api/events",
                    "{\"type\":\"resource.updated\",\"id\":\"traced-1\",\"payload\":{\"resource\":\"traced-1\"}}",
                    Map.of("traceparent", "00-" + trace + "-" + caller + "-01"));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);

            List<ReceivedSpan> spans = collector.await(all -> all.stream().anyMatch(s -> s.traceId().equals(trace)
                    && ran(s)), Duration.ofSeconds(90)).stream().filter(s -> s.traceId().equals(trace)).toList();
            assertThat(spans).as("spans of the event's trace (server log " + server.serverLog() + ")").anyMatch(ServerTracesIT::ran);
            List<ReceivedSpan> posts = spans.stream().filter(s -> s.name().equals("POST /cyclium/api/events")).toList();
            assertThat(posts).hasSize(1);
            ReceivedSpan post = posts.get(0);
            assertThat(post.parentSpanId()).as("the intake continues the caller's span").isEqualTo(caller);
            List<ReceivedSpan> runs = spans.stream().filter(ServerTracesIT::ran).toList();
            for (ReceivedSpan run : runs) {
                assertThat(run.isChildOf(post)).as(run.name() + " under the intake").isTrue();
                assertThat(run.attributes()).containsEntry("cyclium.node", cell).containsEntry("cyclium.trigger", "event")
                        .containsEntry("cyclium.outcome", "done").containsKey("cyclium.episode.id");
                List<ReceivedSpan> steps = spans.stream().filter(s -> s.isChildOf(run)).toList();
                assertThat(steps).as("steps of " + run.name()).isNotEmpty()
                        .allMatch(s -> s.name().startsWith("cyclium "));
                assertThat(spans).as("the journal writes of " + run.name())
                        .anyMatch(w -> w.name().equals("cyclium journal write") && steps.stream().anyMatch(w::isChildOf));
            }
            assertThat(collector.refused()).isEmpty();
        }
    }

    /** A run of an episode that ended (its outcome is set as its span ends). */
    private static boolean ran(ReceivedSpan s) {
        return s.name().startsWith("cyclium episode ") && s.attribute("cyclium.outcome") != null;
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HEX.formatHex(b);
    }
}
