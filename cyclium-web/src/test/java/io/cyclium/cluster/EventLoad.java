package io.cyclium.cluster;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client sending {@code chaos.work} events to the nodes of a cluster at a steady rate while
 * faults happen, the way a careful publisher would: an event goes to a random node; on a refusal
 * (any non-2xx answer) or a connection error it goes to the next node after a short pause, until
 * one answers 2xx or {@link #GIVE_UP} has passed. Only a 2xx counts as accepted. {@code $ID} in the
 * payload becomes the event's id. With lists ({@link #withLists}), every fifth POST is a JSON array
 * of {@link #LIST_SIZE} events ({@code <id>-0} …), accepted or refused together.
 */
final class EventLoad implements AutoCloseable {

    static final Duration GIVE_UP = Duration.ofMinutes(5);
    static final int LIST_SIZE = 5;

    /** An accepted event: when it was first sent and when a node took it. */
    record Accepted(String eventId, Instant firstSent, Instant acceptedAt, int tries, String node) {
        Duration delay() {
            return Duration.between(firstSent, acceptedAt);
        }
    }

    private final List<ClusterNode> nodes;
    private final String prefix;
    private final String payload;
    private final double perSecond;
    private final ExecutorService senders;
    private final Thread pacer;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final String type;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong connectionErrors = new AtomicLong();
    private final Map<String, Accepted> accepted = new ConcurrentHashMap<>();
    private final Map<String, String> givenUp = new ConcurrentHashMap<>();
    private volatile int atLeast;
    private volatile boolean lists;

    private EventLoad(List<ClusterNode> nodes, String prefix, String type, String payload, double perSecond, int atLeast,
            int threads) {
        this.nodes = List.copyOf(nodes);
        this.type = type;
        this.prefix = prefix;
        this.payload = payload;
        this.perSecond = perSecond;
        this.atLeast = atLeast;
        this.senders = Executors.newFixedThreadPool(threads);
        this.pacer = new Thread(this::pace, "event-load-" + prefix);
    }

    /** Starts sending {@code <prefix>-<n>} events at {@code perSecond} until {@link #finish} (at least {@code atLeast}). */
    static EventLoad start(List<ClusterNode> nodes, String prefix, String payload, double perSecond, int atLeast) {
        return start(nodes, prefix, "chaos.work", payload, perSecond, atLeast);
    }

    /** As {@link #start(List, String, String, double, int)}, with events of {@code type}. */
    static EventLoad start(List<ClusterNode> nodes, String prefix, String type, String payload, double perSecond, int atLeast) {
        return start(nodes, prefix, type, payload, perSecond, atLeast, 8);
    }

    /**
     * With {@code threads} senders: a node that does not answer (frozen) holds a sender for the
     * request timeout, so a load that must go on around it needs more of them.
     */
    static EventLoad start(List<ClusterNode> nodes, String prefix, String type, String payload, double perSecond, int atLeast,
            int threads) {
        EventLoad load = new EventLoad(nodes, prefix, type, payload, perSecond, atLeast, threads);
        load.pacer.start();
        return load;
    }

    /** From now on every fifth POST is a list of {@link #LIST_SIZE} events. */
    EventLoad withLists() {
        lists = true;
        return this;
    }

    private void pace() {
        long begin = System.nanoTime();
        for (int i = 0; ; i++) {
            if (stopping.get() && i >= atLeast) {
                return;
            }
            long due = begin + (long) (i * 1e9 / perSecond);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            String id = prefix + "-" + i;
            sent.incrementAndGet();
            List<String> ids = lists && i % 5 == 0
                    ? java.util.stream.IntStream.range(0, LIST_SIZE).mapToObj(k -> id + "-" + k).toList() : List.of(id);
            senders.execute(() -> send(ids));
        }
    }

    private String event(String id) {
        return "{\"type\":\"" + type + "\",\"id\":\"" + id + "\",\"payload\":" + payload.replace("$ID", id) + "}";
    }

    private void send(List<String> ids) {
        String body = ids.size() == 1 ? event(ids.get(0))
                : ids.stream().map(this::event).collect(java.util.stream.Collectors.joining(",", "[", "]"));
        Instant first = Instant.now();
        Instant deadline = first.plus(GIVE_UP);
        int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(nodes.size());
        String last = "never sent";
        for (int tries = 1; Instant.now().isBefore(deadline); tries++) {
            ClusterNode node = nodes.get((start + tries - 1) % nodes.size());
            try {
                HttpReply r = node.post("/events", body);
                if (r.status() / 100 == 2) {
                    for (String id : ids) {
                        accepted.put(id, new Accepted(id, first, Instant.now(), tries, node.name()));
                    }
                    return;
                }
                refusals.incrementAndGet();
                last = node.name() + " answered " + r.status() + " " + r.body();
            } catch (UncheckedIOException e) {
                connectionErrors.incrementAndGet();
                last = node.name() + ": " + e.getCause();
            } catch (RuntimeException e) {
                connectionErrors.incrementAndGet();
                last = node.name() + ": " + e;
            }
            try {
                Thread.sleep(tries < nodes.size() ? 50 : 250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (String id : ids) {
            givenUp.put(id, last);
        }
    }

    /** Stops sending once at least {@code atLeast} events went out; waits for every send to end. */
    void finish() {
        stopping.set(true);
        try {
            pacer.join();
            senders.shutdown();
            if (!senders.awaitTermination(GIVE_UP.toSeconds() + 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("senders still busy after " + GIVE_UP);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    int sent() {
        return sent.get();
    }

    Map<String, Accepted> accepted() {
        return accepted;
    }

    Map<String, String> givenUp() {
        return givenUp;
    }

    long refusals() {
        return refusals.get();
    }

    long connectionErrors() {
        return connectionErrors.get();
    }

    Duration longestDelay() {
        return accepted.values().stream().map(Accepted::delay).max(Duration::compareTo).orElse(Duration.ZERO);
    }

    @Override
    public void close() {
        stopping.set(true);
        pacer.interrupt();
        senders.shutdownNow();
    }
}
