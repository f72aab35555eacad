package io.cyclium.workflow;

import io.cyclium.timing.RetryPolicy;
import io.cyclium.episode.Budget;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the workflow engine itself costs on a database: instances per second of a 6-step
 * fan-out/fan-in DAG (start → a, b, c → join → end) and the step advancement latency — from the
 * moment a step's episode is committed as done to the moment its successor's episode row is
 * committed and handed to a worker — p50 and p99. The actors are instant: a pool of worker threads
 * stands in for the runtime (insert the episode with its dedupe key, mark it done, fire the
 * terminal event to the engine on the same thread, as the runtime does after its terminal commit).
 * So this is the engine and the database, without Payara, HTTP or strategy work. Not a test: run
 * it by hand on a quiet machine.
 *
 * <pre>
 * mvn -q -B -o -pl cyclium-ejb test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.cyclium.workflow.WorkflowBenchmark [-Dbench.instances=200] [-Dbench.workers=8] \
 *     [-Dbench.vendors=POSTGRESQL]
 * </pre>
 */
public final class WorkflowBenchmark {

    static final WorkflowDefinition DAG = new WorkflowDefinition("bench", "", List.of(), List.of(
            step("start"), step("a", "start"), step("b", "start"), step("c", "start"), step("join", "a", "b", "c"),
            step("end", "join")));

    private static StepDefinition step(String id, String... deps) {
        return new StepDefinition(id, "bench", "step", List.of(deps), true, false, FailurePolicy.ABORT, RetryPolicy.NONE);
    }

    public static void main(String[] args) throws Exception {
        int instances = Integer.getInteger("bench.instances", 200);
        int workers = Integer.getInteger("bench.workers", 8);
        System.out.printf("workflow engine benchmark: %d cores, Java %s, load average %.1f%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), load());
        for (String v : System.getProperty("bench.vendors", "POSTGRESQL").split(",")) {
            Vendor vendor = Vendor.valueOf(v.trim());
            try (TestDatabase db = TestDatabase.create(vendor); TestJpa jpa = new TestJpa(db)) {
                run(vendor, jpa, 20, workers); // warm-up: JIT, pools, plans
                run(vendor, jpa, instances, workers);
            }
        }
    }

    private static void run(Vendor vendor, TestJpa jpa, int instances, int workers) throws Exception {
        EpisodeStore episodes = new EpisodeStore(jpa.vendor());
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        ThreadLocal<Long> doneAt = new ThreadLocal<>();
        AtomicInteger finished = new AtomicInteger();
        WorkflowEngine[] engine = new WorkflowEngine[1];
        StepLauncher launcher = new StepLauncher() {
            @Override
            public Launch launch(jakarta.persistence.EntityManager launching, StepDefinition step, String instanceId,
                    int attempt, String key, JsonObject input, String stack, String env) {
                // a transaction of its own, committed before the worker may finish the episode (the
                // runtime's launcher starts it after the engine's transaction instead)
                String id = UUID.randomUUID().toString();
                NewEpisode e = new NewEpisode(id, "bench", "step", "1", new TriggerInfo(TriggerInfo.WORKFLOW, null, key, input,
                        null), key, 1, new Budget(10, Duration.ofMinutes(1)), "bench", false, null, null, instanceId, step.id());
                if (!jpa.inNewTransaction(em -> episodes.insert(em, e))) {
                    return new Launch(Kind.DUPLICATE, null, "taken");
                }
                Long predecessorDone = doneAt.get();
                if (predecessorDone != null) {
                    latencies.add(System.nanoTime() - predecessorDone);
                }
                pool.submit(() -> {
                    jpa.run(em -> episodes.finish(em, id, EpisodeStatus.DONE, 1, "ok", null, null));
                    doneAt.set(System.nanoTime());
                    try {
                        engine[0].onFinished(new EpisodeFinished(id, "bench", "step", "done", null, instanceId, step.id()));
                        if ("end".equals(step.id())) {
                            finished.incrementAndGet();
                        }
                    } catch (RuntimeException ex) {
                        ex.printStackTrace();
                    } finally {
                        doneAt.remove();
                    }
                });
                return new Launch(Kind.STARTED, id, null);
            }

            @Override
            public void cancel(String episodeId) {
            }
        };
        engine[0] = new WorkflowEngine(jpa, new WorkflowStore(io.cyclium.store.DatabaseTime.of(jpa.vendor()), "bench"), new WorkflowQueries(jpa.vendor()),
                id -> Optional.of(DAG), launcher, Clock.systemUTC(), Telemetry.NOOP, Math::random);
        long t0 = System.nanoTime();
        for (int i = 0; i < instances; i++) {
            engine[0].start(DAG, new WorkflowEngine.Start(Json.createObjectBuilder().add("n", i).build(), "s" + i + "-"
                    + UUID.randomUUID(), null, null, null, "bench"));
        }
        while (finished.get() < instances && System.nanoTime() - t0 < TimeUnit.MINUTES.toNanos(10)) {
            Thread.sleep(5);
        }
        // the last 'end' handler completes its instance right after counting: give it a moment
        Thread.sleep(200);
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        long completed = jpa.inNewTransaction(em -> ((Number) em.createNativeQuery(
                "SELECT COUNT(*) FROM cyclium_workflow_instances WHERE status = 'completed'").getSingleResult()).longValue());
        long episodesMade = jpa.inNewTransaction(em -> ((Number) em.createNativeQuery(
                "SELECT COUNT(*) FROM cyclium_episodes").getSingleResult()).longValue());
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        System.out.printf("%s: %d instances of a 6-step DAG, %d workers: %.1f s, %.1f instances/s, %d completed in all,"
                + " %d step episodes in all; advancement latency p50 %.1f ms, p99 %.1f ms (%d successors)%n", vendor, instances,
                workers, seconds, instances / seconds, completed, episodesMade, pct(sorted, 0.50), pct(sorted, 0.99), sorted.size());
        System.out.printf("load average now %.1f (other work on the machine skews every figure)%n", load());
    }

    private static double load() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static double pct(List<Long> sorted, double p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1)) / 1e6;
    }
}
