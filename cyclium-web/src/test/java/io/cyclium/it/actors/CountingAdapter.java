package io.cyclium.it.actors;

import io.cyclium.output.OutputAdapter;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts how often it is asked to deliver each dedupe key. */
@ApplicationScoped
public class CountingAdapter implements OutputAdapter {

    public static final String TYPE = "it_counter";
    public static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public String deliver(Delivery delivery) {
        CALLS.computeIfAbsent(delivery.dedupeKey(), k -> new AtomicInteger()).incrementAndGet();
        return "counted:" + delivery.dedupeKey();
    }
}
