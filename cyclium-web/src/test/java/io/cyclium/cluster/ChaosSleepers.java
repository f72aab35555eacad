package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.keys.DedupeKeys;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Durable sleeps and waits in the chaos suite, beside its other loads: {@code timers.sleep} events
 * for the cluster actor's sleeper, one load that only sleeps and one that sleeps, then waits for
 * the signal {@code go} with a timeout. While the faults run, a sender signals every waiter of an
 * even event number (retrying on another node through refusals, outages and dead nodes); the odd
 * ones are left to time out. Afterwards: each sleep resolved exactly once, each wait exactly once —
 * by its signal or by its timeout, never both — every episode done with one row in
 * {@link io.cyclium.cluster.actors.ChaosLedger}'s ledger (its output goes there, as the chaos work's
 * does: a run killed after the adapter returned is delivered again under the same key, at least
 * once to the adapter, once in effect), none stranded.
 */
final class ChaosSleepers implements AutoCloseable {

    static final String SIGNAL = "go";

    private final ClusterHarness cluster;
    private final EventLoad sleepers;
    private final EventLoad waiters;
    private final long timeoutMs;
    private final Thread signaller;
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Event id of a waiter to when its signal was first answered 200 (delivered) or 202 (kept). */
    private final Map<String, Instant> signalled = new ConcurrentHashMap<>();
    private final AtomicLong signalRetries = new AtomicLong();

    private ChaosSleepers(ClusterHarness cluster, String variant, double perSecond, int atLeast, long sleepMs, long timeoutMs) {
        this.cluster = cluster;
        this.timeoutMs = timeoutMs;
        String run = variant + "-" + java.util.UUID.randomUUID().toString().substring(0, 6);
        String output = ",\"output\":\"" + io.cyclium.cluster.actors.ChaosLedger.TYPE + "\"";
        this.sleepers = EventLoad.start(cluster.nodes(), "sleeper-" + run, "timers.sleep", "{\"sleepMs\":" + sleepMs + output + "}",
                perSecond, atLeast);
        this.waiters = EventLoad.start(cluster.nodes(), "waiter-" + run, "timers.sleep", "{\"sleepMs\":1000,\"signal\":\""
                + SIGNAL + "\",\"timeoutMs\":" + timeoutMs + output + "}", perSecond, atLeast);
        this.signaller = new Thread(this::signalEvenWaiters, "chaos-signals-" + run);
        signaller.setDaemon(true);
        signaller.start();
    }

    /**
     * Starts both loads ({@code perSecond} each, at least {@code atLeast} each): sleeps of
     * {@code sleepMs}, waits of {@code timeoutMs}.
     */
    static ChaosSleepers start(ClusterHarness cluster, String variant, double perSecond, int atLeast, long sleepMs,
            long timeoutMs) {
        return new ChaosSleepers(cluster, variant, perSecond, atLeast, sleepMs, timeoutMs);
    }

    private static boolean even(String eventId) {
        return Integer.parseInt(eventId.substring(eventId.lastIndexOf('-') + 1)) % 2 == 0;
    }

    private static String key(String eventId) {
        return DedupeKeys.event("cluster_actor", "sleeper", eventId, "timers.sleep", null);
    }

    /** Every 2 s, a signal to each accepted even waiter not signalled yet whose episode is stored. */
    private void signalEvenWaiters() {
        while (!stopping.get()) {
            for (String event : waiters.accepted().keySet()) {
                if (!even(event) || signalled.containsKey(event) || stopping.get()) {
                    continue;
                }
                try {
                    List<Map<String, Object>> rows = cluster.database().query("SELECT id FROM cyclium_episodes WHERE dedupe_key = ?",
                            key(event));
                    if (rows.isEmpty()) {
                        continue;
                    }
                    List<ClusterNode> alive = cluster.nodes().stream().filter(ClusterNode::isAlive).toList();
                    if (alive.isEmpty()) {
                        continue;
                    }
                    ClusterNode node = alive.get(ThreadLocalRandom.current().nextInt(alive.size()));
                    HttpReply r = node.post("/episodes/" + rows.get(0).get("id") + "/signals/" + SIGNAL,
                            "{\"payload\":{\"event\":\"" + event + "\"}}");
                    if (r.status() == 200 || r.status() == 202) {
                        signalled.put(event, Instant.now());
                    } else {
                        signalRetries.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    // a node killed or the database stopped under the call: the next round tries again
                    signalRetries.incrementAndGet();
                }
            }
            try {
                Thread.sleep(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops sending events; the signal sender goes on until every accepted even waiter was signalled. */
    void finish() {
        sleepers.finish();
        waiters.finish();
        Instant until = Instant.now().plus(EventLoad.GIVE_UP);
        while (Instant.now().isBefore(until) && waiters.accepted().keySet().stream().filter(ChaosSleepers::even)
                .anyMatch(e -> !signalled.containsKey(e))) {
            ChaosIT.Chaos.sleep(1_000);
        }
        stopping.set(true);
    }

    /**
     * Waits (through {@code chaos}) until every accepted sleeper and waiter is terminal, then checks
     * that each resolved its sleep once and its wait once, by the right cause, and delivered once.
     */
    void assertEachResolvedOnce(ChaosIT.Chaos chaos, String variant, Instant lastFault, Duration settle) {
        Instant deadline = lastFault.plus(settle).plusMillis(timeoutMs);
        ChaosIT.Chaos.Settled slept = chaos.awaitTerminal("cluster_actor", "sleeper", "timers.sleep", sleepers, deadline);
        ChaosIT.Chaos.Settled waited = chaos.awaitTerminal("cluster_actor", "sleeper", "timers.sleep", waiters, deadline);
        List<String> ids = new ArrayList<>();
        slept.episodes().forEach(r -> ids.add((String) r.get("id")));
        waited.episodes().forEach(r -> ids.add((String) r.get("id")));
        Map<String, String> eventOf = new java.util.HashMap<>();
        waited.byKey().forEach((k, rows) -> rows.forEach(r -> eventOf.put((String) r.get("id"), waited.keyToEvent().get(k))));

        // per episode: its wait_resolved rows, by reference and cause
        Map<String, List<String>> resolutions = new java.util.HashMap<>();
        for (Map<String, Object> r : cluster.database().query("SELECT s.episode_id, s.detail FROM cyclium_episode_steps s"
                + " JOIN cyclium_episodes e ON e.id = s.episode_id WHERE e.expectation_id = 'sleeper' AND s.kind = 'wait_resolved'")) {
            String id = (String) r.get("episode_id");
            JsonObject d = Json.createReader(new StringReader((String) r.get("detail"))).readObject();
            String cause = d.getBoolean("sleep", false) ? "slept" : d.getBoolean("timedOut", false) ? "timed_out"
                    : d.containsKey("signal") ? "signal" : "other";
            resolutions.computeIfAbsent(id, x -> new ArrayList<>()).add(d.getString("reference", "") + ":" + cause);
        }
        Map<String, Long> deliveries = cluster.database().query("SELECT episode_id, COUNT(*) AS n FROM it_ledger"
                + " GROUP BY episode_id").stream().collect(Collectors.toMap(r -> (String) r.get("episode_id"),
                        r -> ((Number) r.get("n")).longValue()));
        // adapter calls for these episodes' keys beyond one each: redeliveries after a kill, expected and
        // reported (the ledger holds the whole suite's rows, so only this variant's episodes count)
        Map<String, Long> calls = cluster.database().query("SELECT l.episode_id, COUNT(*) AS n FROM it_ledger_calls c"
                + " JOIN it_ledger l ON l.output_key = c.output_key GROUP BY l.episode_id").stream().collect(Collectors.toMap(
                        r -> (String) r.get("episode_id"), r -> ((Number) r.get("n")).longValue()));
        long redelivered = ids.stream().mapToLong(id -> calls.getOrDefault(id, 0L) - deliveries.getOrDefault(id, 0L)).sum();

        List<String> notDone = new ArrayList<>();
        List<String> sleptNotOnce = new ArrayList<>();
        List<String> waitNotOnce = new ArrayList<>();
        List<String> wrongCause = new ArrayList<>();
        List<String> deliveredNotOnce = new ArrayList<>();
        int bySignal = 0;
        int timedOut = 0;
        int signalledLate = 0;
        for (Map<String, Object> r : slept.episodes()) {
            String id = (String) r.get("id");
            if (!"done".equals(r.get("status"))) {
                notDone.add(id + " " + r.get("status"));
            }
            if (!List.of("sleep:slept").equals(resolutions.getOrDefault(id, List.of()))) {
                sleptNotOnce.add(id + " " + resolutions.get(id));
            }
        }
        for (Map<String, Object> r : waited.episodes()) {
            String id = (String) r.get("id");
            String event = eventOf.get(id);
            if (!"done".equals(r.get("status"))) {
                notDone.add(id + " " + r.get("status"));
            }
            List<String> rs = resolutions.getOrDefault(id, List.of());
            if (rs.stream().filter("sleep:slept"::equals).count() != 1) {
                sleptNotOnce.add(id + " " + rs);
            }
            List<String> waits = rs.stream().filter(x -> x.startsWith(SIGNAL + ":")).toList();
            if (waits.size() != 1) {
                waitNotOnce.add(id + " " + rs);
                continue;
            }
            boolean signal = waits.get(0).equals(SIGNAL + ":signal");
            if (signal) {
                bySignal++;
            } else {
                timedOut++;
            }
            if (!even(event) && signal) {
                wrongCause.add(id + " (odd, never signalled) " + rs);
            } else if (even(event) && !signal) {
                // a signal first answered after the wait's timeout may rightly come too late
                Instant answered = signalled.get(event);
                boolean late = answered == null || waiters.accepted().get(event) == null || Duration.between(
                        waiters.accepted().get(event).acceptedAt(), answered).toMillis() > timeoutMs - 5_000;
                if (late) {
                    signalledLate++;
                } else {
                    wrongCause.add(id + " (signalled in time, yet timed out) " + rs);
                }
            }
        }
        for (String id : ids) {
            if (deliveries.getOrDefault(id, 0L) != 1) {
                deliveredNotOnce.add(id + " " + deliveries.getOrDefault(id, 0L));
            }
        }
        String figures = String.format(Locale.ROOT, "[figures] chaos %s sleepers: %d sleepers and %d waiters accepted (%d + %d given"
                        + " up), %d waits resolved by a signal, %d timed out (%d of them signalled too late), %d signal calls"
                        + " retried; %d not done, %d lost, %d duplicated, %d sleeps and %d waits not resolved exactly once,"
                        + " %d resolved by the wrong cause, %d not delivered exactly once (%d adapter calls again after a fault)",
                variant, sleepers.accepted().size(), waiters.accepted().size(), sleepers.givenUp().size(), waiters.givenUp().size(),
                bySignal, timedOut, signalledLate, signalRetries.get(), notDone.size(), slept.lost().size() + waited.lost().size(),
                slept.duplicated().size() + waited.duplicated().size(), sleptNotOnce.size(), waitNotOnce.size(), wrongCause.size(),
                deliveredNotOnce.size(), redelivered);
        System.out.println(figures);
        assertThat(sleepers.accepted()).as("accepted sleepers").isNotEmpty();
        assertThat(waiters.accepted()).as("accepted waiters").isNotEmpty();
        assertThat(slept.lost()).as("sleepers without an episode. " + figures).isEmpty();
        assertThat(waited.lost()).as("waiters without an episode. " + figures).isEmpty();
        assertThat(slept.duplicated()).as("sleepers with two episodes").isEmpty();
        assertThat(waited.duplicated()).as("waiters with two episodes").isEmpty();
        assertThat(notDone).as("sleepers and waiters not done (stranded). %s%s", figures,
                chaos.describe(notDone.stream().map(s -> s.substring(0, 36)).limit(10).toList())).isEmpty();
        assertThat(sleptNotOnce).as("sleeps not resolved exactly once. " + figures).isEmpty();
        assertThat(waitNotOnce).as("waits not resolved exactly once (signal or timeout, never both). " + figures).isEmpty();
        assertThat(wrongCause).as("waits resolved by the wrong cause. " + figures).isEmpty();
        assertThat(deliveredNotOnce).as("episodes whose output was not delivered exactly once. " + figures).isEmpty();
        assertThat(bySignal).as("waits resolved by a signal").isPositive();
        assertThat(timedOut).as("waits that timed out").isPositive();
        assertThat(Set.copyOf(ids)).hasSize(ids.size());
    }

    @Override
    public void close() {
        stopping.set(true);
        sleepers.close();
        waiters.close();
    }
}
