package io.cyclium.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * An OpenTelemetry collector in the test JVM: an OTLP/HTTP receiver on loopback that decodes each
 * {@code POST /v1/traces} (protobuf, the SDK's {@code http/protobuf} exporter) with the
 * OpenTelemetry proto classes and keeps every span. Other signals are answered and dropped.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One exported span: ids in lower-case hex, the parent empty for a root. */
    public record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name, String kind,
            Map<String, String> attributes, boolean failed) {

        public String attribute(String key) {
            return attributes.get(key);
        }

        public boolean isChildOf(ReceivedSpan parent) {
            return traceId.equals(parent.traceId) && parentSpanId.equals(parent.spanId);
        }
    }

    private static final HexFormat HEX = HexFormat.of();
    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** Listens on a free loopback port. */
    public static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(ClusterHarness.LOOPBACK, 0), 16);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/", receiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
        return receiver;
    }

    /** What {@code OTEL_EXPORTER_OTLP_ENDPOINT} names: the exporter appends {@code /v1/traces}. */
    public String endpoint() {
        return "http://" + ClusterHarness.LOOPBACK + ":" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (exchange.getRequestURI().getPath().equals("/v1/traces")) {
                try {
                    keep(ExportTraceServiceRequest.parseFrom(body));
                } catch (IOException | RuntimeException e) {
                    refused.add(e.toString());
                    exchange.sendResponseHeaders(400, -1);
                    return;
                }
            }
            // an empty Export*ServiceResponse: everything accepted
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private void keep(ExportTraceServiceRequest request) {
        for (ResourceSpans rs : request.getResourceSpansList()) {
            String service = attributes(rs.getResource()).getOrDefault("service.name", "");
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
                    spans.add(new ReceivedSpan(service, HEX.formatHex(s.getTraceId().toByteArray()),
                            HEX.formatHex(s.getSpanId().toByteArray()), HEX.formatHex(s.getParentSpanId().toByteArray()),
                            s.getName(), s.getKind().name(), attributes(s.getAttributesList()),
                            s.getStatus().getCode() == io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR));
                }
            }
        }
    }

    private static Map<String, String> attributes(Resource resource) {
        return attributes(resource.getAttributesList());
    }

    private static Map<String, String> attributes(List<KeyValue> list) {
        Map<String, String> out = new LinkedHashMap<>();
        for (KeyValue kv : list) {
            out.put(kv.getKey(), kv.getValue().hasStringValue() ? kv.getValue().getStringValue()
                    : String.valueOf(kv.getValue()).strip());
        }
        return out;
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** Bodies that did not decode as OTLP traces (a test asserts there are none). */
    public List<String> refused() {
        return List.copyOf(refused);
    }

    /** The spans received once {@code done} holds for them, or all received when {@code timeout} ran out. */
    public List<ReceivedSpan> await(Predicate<List<ReceivedSpan>> done, Duration timeout) throws InterruptedException {
        Instant until = Instant.now().plus(timeout);
        while (Instant.now().isBefore(until)) {
            List<ReceivedSpan> now = spans();
            if (done.test(now)) {
                return now;
            }
            Thread.sleep(200);
        }
        return spans();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
