package io.cyclium.execution;

import io.cyclium.output.OutputAdapter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The output type {@code count}: counts each delivery per output dedupe key and answers "ok". */
final class CountingAdapter implements OutputAdapter {

    final Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();

    @Override
    public String type() {
        return "count";
    }

    @Override
    public String deliver(Delivery d) {
        delivered.computeIfAbsent(d.dedupeKey(), k -> new AtomicInteger()).incrementAndGet();
        return "ok";
    }
}
