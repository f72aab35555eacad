package io.cyclium.telemetry;

/**
 * Traces of episodes and workflows, behind an interface of our own so the core names no tracing
 * library and costs nothing when tracing is off ({@link #OFF}: no span, no context, no string
 * built). The container's implementation is {@link OpenTelemetryTracing}, over the server's
 * MicroProfile Telemetry; which one a node uses is decided once at boot (io.cyclium.tracing).
 *
 * <p>Spans cross threads and nodes as W3C {@code traceparent} strings: the intake stores the one of
 * the event's span with the episode row, and whichever node runs (or resumes, or recovers) the
 * episode starts its run span under it. Attributes come in name/value pairs.
 */
public interface Tracing {

    /** Whether spans are made at all; false for {@link #OFF}. */
    boolean on();

    /** The span current on this thread as a W3C {@code traceparent}; null when there is none or tracing is off. */
    String current();

    /**
     * The parent to store with a row about to be inserted (an episode, a workflow instance): the
     * span current on this thread (an event's intake span, a workflow instance's), or else a new
     * root span {@code name} that marks the trigger, ended at once, so that every run of the row
     * on any node lands in one trace. Null when off.
     */
    String parentForNewRow(String name, String... attributes);

    /**
     * Starts a span under a stored {@code traceparent} (null or malformed: a new trace). Not made
     * current on the calling thread: children are started from it explicitly.
     */
    TraceSpan start(String name, String parentTraceParent, String... attributes);

    /**
     * Starts a server span for an incoming request that carried {@code incomingTraceParent} (null:
     * a new trace) and makes it current on this thread until it is closed, so that rows inserted
     * meanwhile take it as their parent ({@link #parentForNewRow}). Close it on the same thread.
     */
    TraceSpan enter(String name, String incomingTraceParent, String... attributes);

    Tracing OFF = new Tracing() {
        @Override
        public boolean on() {
            return false;
        }

        @Override
        public String current() {
            return null;
        }

        @Override
        public String parentForNewRow(String name, String... attributes) {
            return null;
        }

        @Override
        public TraceSpan start(String name, String parentTraceParent, String... attributes) {
            return TraceSpan.NONE;
        }

        @Override
        public TraceSpan enter(String name, String incomingTraceParent, String... attributes) {
            return TraceSpan.NONE;
        }
    };
}
