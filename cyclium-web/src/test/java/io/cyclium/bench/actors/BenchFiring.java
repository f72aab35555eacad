package io.cyclium.bench.actors;

import io.cyclium.actor.CycliumEvent;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code POST /cyclium/api/bench/fire?count=&threads=&prefix=}: fires {@code count} {@code bench.tick}
 * events through the CDI event, as host code would, from {@code threads} container threads, and
 * answers once every {@code fire} has returned (each one stored its episode before returning).
 * Only in the benchmark's WAR, never in the product.
 */
@ApplicationScoped
@Path("bench")
public class BenchFiring {

    @Inject
    Event<CycliumEvent> events;

    @Resource(lookup = "java:comp/DefaultManagedThreadFactory")
    ManagedThreadFactory threads;

    @POST
    @Path("fire")
    @Produces(MediaType.APPLICATION_JSON)
    public String fire(@QueryParam("count") int count, @QueryParam("threads") int threadCount,
            @QueryParam("prefix") String prefix) throws InterruptedException {
        if (count < 1 || threadCount < 1 || prefix == null || prefix.isBlank()) {
            throw new jakarta.ws.rs.BadRequestException("count, threads and prefix are required");
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicLong firstError = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threadCount; t++) {
            Thread w = threads.newThread(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    try {
                        events.fire(new CycliumEvent("bench.tick", prefix + "-" + i, JsonValue.EMPTY_JSON_OBJECT));
                    } catch (RuntimeException e) {
                        if (failed.getAndIncrement() == 0) {
                            firstError.set(System.nanoTime());
                            e.printStackTrace();
                        }
                    }
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        return "{\"fired\":" + (count - failed.get()) + ",\"failed\":" + failed.get() + ",\"ms\":" + ms + "}";
    }
}
