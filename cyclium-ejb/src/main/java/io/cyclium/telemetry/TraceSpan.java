package io.cyclium.telemetry;

/**
 * One span of a trace ({@link Tracing}). {@link #NONE} is what every call returns when tracing is
 * off: its methods do nothing and allocate nothing. A span is ended once by {@link #close()};
 * closing it again does nothing.
 */
public interface TraceSpan extends AutoCloseable {

    /** Starts a child span (ended by its own close). */
    TraceSpan child(String name, String... attributes);

    /** Sets an attribute (the outcome of a run once it is known). */
    void set(String key, String value);

    /** Marks the span failed with a short reason (an error class, never a stack trace). */
    void failed(String reason);

    /** This span as a W3C {@code traceparent}, to be stored as the parent of later work; null for NONE. */
    String traceParent();

    @Override
    void close();

    TraceSpan NONE = new TraceSpan() {
        @Override
        public TraceSpan child(String name, String... attributes) {
            return this;
        }

        @Override
        public void set(String key, String value) {
        }

        @Override
        public void failed(String reason) {
        }

        @Override
        public String traceParent() {
            return null;
        }

        @Override
        public void close() {
        }
    };
}
