package io.cyclium.telemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Collections;
import java.util.Map;

/**
 * {@link Tracing} over an OpenTelemetry {@link Tracer}: the one the server's MicroProfile Telemetry
 * gives the application (Payara, WildFly), which also exports the spans. Only the OpenTelemetry API
 * is named here, never an SDK class, and this class is loaded only when tracing is on
 * (io.cyclium.tracing.TracingProducer), so a server without the API deploys unchanged.
 *
 * <p>The tracer is taken once at boot and used from any thread: episode threads carry no
 * application context of the server's, and need none to create spans.
 */
public final class OpenTelemetryTracing implements Tracing {

    /** The instrumentation scope name of every Cyclium span. */
    public static final String SCOPE = "io.cyclium";
    private static final String TRACEPARENT = "traceparent";

    private final Tracer tracer;

    public OpenTelemetryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Over the tracer of an {@code io.opentelemetry.api.OpenTelemetry} (typed Object so callers name no API type). */
    public static Tracing of(Object openTelemetry) {
        return new OpenTelemetryTracing(((io.opentelemetry.api.OpenTelemetry) openTelemetry).getTracer(SCOPE));
    }

    @Override
    public boolean on() {
        return true;
    }

    @Override
    public String current() {
        return traceParent(Span.current().getSpanContext());
    }

    @Override
    public String parentForNewRow(String name, String... attributes) {
        Span current = Span.current();
        if (current.getSpanContext().isValid()) {
            return traceParent(current.getSpanContext());
        }
        // no span here (a schedule, host code's CDI event): a root that marks the trigger, so a run
        // resumed or recovered on another node still joins this trace through the stored parent
        Span root = builder(name, Context.root(), SpanKind.INTERNAL, attributes).startSpan();
        root.end();
        return traceParent(root.getSpanContext());
    }

    @Override
    public TraceSpan start(String name, String parentTraceParent, String... attributes) {
        return new OtelSpan(builder(name, parent(parentTraceParent), SpanKind.INTERNAL, attributes).startSpan(), null);
    }

    @Override
    public TraceSpan enter(String name, String incomingTraceParent, String... attributes) {
        Span span = builder(name, parent(incomingTraceParent), SpanKind.SERVER, attributes).startSpan();
        return new OtelSpan(span, span.makeCurrent());
    }

    private SpanBuilder builder(String name, Context parent, SpanKind kind, String... attributes) {
        SpanBuilder b = tracer.spanBuilder(name).setParent(parent).setSpanKind(kind);
        for (int i = 0; i + 1 < attributes.length; i += 2) {
            if (attributes[i + 1] != null) {
                b.setAttribute(attributes[i], attributes[i + 1]);
            }
        }
        return b;
    }

    /** The context a stored or received traceparent names; the root context when there is none or it is malformed. */
    static Context parent(String traceParent) {
        if (traceParent == null || traceParent.isBlank()) {
            return Context.root();
        }
        Map<String, String> carrier = Collections.singletonMap(TRACEPARENT, traceParent.trim());
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, CARRIER);
    }

    static String traceParent(SpanContext c) {
        return c.isValid() ? "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex() : null;
    }

    private static final TextMapGetter<Map<String, String>> CARRIER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final class OtelSpan implements TraceSpan {

        private final Span span;
        private final Scope scope;
        private boolean ended;

        OtelSpan(Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        @Override
        public TraceSpan child(String name, String... attributes) {
            return new OtelSpan(builder(name, Context.root().with(span), SpanKind.INTERNAL, attributes).startSpan(), null);
        }

        @Override
        public void set(String key, String value) {
            if (value != null) {
                span.setAttribute(key, value);
            }
        }

        @Override
        public void failed(String reason) {
            span.setStatus(StatusCode.ERROR, reason == null ? "" : reason);
        }

        @Override
        public String traceParent() {
            return OpenTelemetryTracing.traceParent(span.getSpanContext());
        }

        @Override
        public void close() {
            if (ended) {
                return;
            }
            ended = true;
            if (scope != null) {
                scope.close();
            }
            span.end();
        }
    }
}
