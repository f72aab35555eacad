package io.cyclium.testing;

import io.cyclium.telemetry.OpenTelemetryTracing;
import io.cyclium.telemetry.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The real OpenTelemetry SDK, exporting every ended span into a list the test reads: what
 * {@link OpenTelemetryTracing} makes, with no server and no collector.
 */
public final class CollectedSpans implements SpanExporter {

    private final List<SpanData> spans = new CopyOnWriteArrayList<>();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(this)).build();

    /** Tracing over this SDK (spans are exported as they end). */
    public Tracing tracing() {
        return new OpenTelemetryTracing(provider.get(OpenTelemetryTracing.SCOPE));
    }

    public List<SpanData> all() {
        return List.copyOf(spans);
    }

    /** The one span of that name. */
    public SpanData named(String name) {
        List<SpanData> found = spans.stream().filter(s -> s.getName().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one span named \"" + name + "\", found " + found.size() + " among "
                    + spans.stream().map(SpanData::getName).toList());
        }
        return found.get(0);
    }

    /** The spans whose parent is {@code parent}, by name, in the order they ended. */
    public List<String> childrenOf(SpanData parent) {
        return spans.stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId())
                && s.getTraceId().equals(parent.getTraceId())).map(SpanData::getName).toList();
    }

    public static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> batch) {
        spans.addAll(batch);
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
