package io.cyclium.claims;

import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.StatementCountingTx;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestJpa;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * How fast work claims are on each database: claim cycles (acquire + complete) per second with
 * 1 and 4 threads, on new keys (the INSERT path) and on recurring keys (re-claim of a done row, the
 * UPDATE path), and what one heartbeat tick ({@link WorkClaims#renewAll}) costs with 1, 100 and
 * 1,000 held claims. Not a test: run it by hand on a quiet machine.
 *
 * <pre>
 * mvn -q -B -o -pl cyclium-ejb test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.cyclium.claims.ClaimsBenchmark [-Dbench.seconds=5] [-Dbench.vendors=H2,MARIADB]
 * </pre>
 */
public final class ClaimsBenchmark {

    private static final int LEASE = 120;
    private static final int[] THREADS = {1, 4};
    private static final int[] HELD = {1, 100, 1_000};
    private static final int TICKS = 20;

    private final Vendor vendor;
    private final StatementCountingTx tx;
    private final JpaWorkClaims claims;
    private final long windowNanos;

    private ClaimsBenchmark(Vendor vendor, TestJpa jpa, int seconds) {
        this.vendor = vendor;
        this.tx = new StatementCountingTx(jpa);
        this.claims = new JpaWorkClaims(tx, jpa.vendor(), Telemetry.NOOP);
        this.windowNanos = seconds * 1_000_000_000L;
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.getInteger("bench.seconds", 5);
        List<Vendor> vendors = Arrays.stream(System.getProperty("bench.vendors", "H2,POSTGRESQL,MARIADB").split(","))
                .map(String::trim).map(Vendor::valueOf).toList();
        System.out.printf("work claims benchmark: %d s per figure, %d cores, Java %s, load average %.1f%n", seconds,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), load());
        for (Vendor vendor : vendors) {
            try (TestDatabase db = TestDatabase.create(vendor); TestJpa jpa = new TestJpa(db)) {
                new ClaimsBenchmark(vendor, jpa, seconds).run();
            }
        }
        System.out.printf("load average at the end %.1f (other work on the machine skews every figure)%n", load());
    }

    private static double load() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private void run() throws Exception {
        // both paths, long enough for the JIT (H2 runs inside this JVM and is the most sensitive)
        String[] warmKeys = {"warm-up:" + UUID.randomUUID(), "warm-up:" + UUID.randomUUID()};
        cycles(2, t -> "warm-up:" + UUID.randomUUID(), windowNanos / 2);
        cycles(2, t -> warmKeys[t], windowNanos / 2);
        for (int threads : THREADS) {
            report("new keys", threads, cycles(threads, t -> "bench:" + UUID.randomUUID(), windowNanos));
        }
        for (int threads : THREADS) {
            String[] recurring = new String[threads];
            Arrays.setAll(recurring, t -> "bench:recurring:" + UUID.randomUUID());
            report("recurring keys", threads, cycles(threads, t -> recurring[t], windowNanos));
        }
        for (int held : HELD) {
            heartbeat(held);
        }
    }

    private record Cycles(long cycles, long nanos, long statements) {
    }

    /** Each thread acquires and completes keys from {@code keyOf} until the window closes. */
    private Cycles cycles(int threads, IntFunction<String> keyOf, long window) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long statementsBefore = tx.statements();
        long began = System.nanoTime();
        long deadline = began + window;
        try {
            List<Future<Long>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                String owner = "bench-node-" + t;
                futures.add(pool.submit(() -> {
                    long done = 0;
                    while (System.nanoTime() < deadline) {
                        String key = keyOf.apply(thread);
                        if (!claims.acquire(key, owner, LEASE, "episode").acquired() || !claims.complete(key, owner)) {
                            throw new IllegalStateException("benchmark claim " + key + " was contended");
                        }
                        done++;
                    }
                    return done;
                }));
            }
            long total = 0;
            for (Future<Long> f : futures) {
                total += f.get();
            }
            return new Cycles(total, System.nanoTime() - began, tx.statements() - statementsBefore);
        } finally {
            pool.shutdownNow();
        }
    }

    private void report(String keys, int threads, Cycles c) {
        System.out.printf("%-10s claim cycles, %-15s %d thread%-3s %,8.0f cycles/s  (%.1f statements per cycle)%n",
                vendor, keys + ",", threads, threads == 1 ? ": " : "s:", c.cycles() / (c.nanos() / 1e9),
                (double) c.statements() / c.cycles());
    }

    /** One owner holds {@code held} claims; times {@link #TICKS} renewAll calls after three to warm up. */
    private void heartbeat(int held) {
        String owner = "bench-heartbeat-" + held + "-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < held; i++) {
            claims.acquire("bench:held:" + UUID.randomUUID(), owner, LEASE, "episode");
        }
        for (int i = 0; i < 3; i++) {
            claims.renewAll(owner, LEASE);
        }
        long statementsBefore = tx.statements();
        long slowest = 0;
        long total = 0;
        for (int i = 0; i < TICKS; i++) {
            long began = System.nanoTime();
            int renewed = claims.renewAll(owner, LEASE);
            long took = System.nanoTime() - began;
            if (renewed != held) {
                throw new IllegalStateException("renewed " + renewed + " of " + held + " claims");
            }
            total += took;
            slowest = Math.max(slowest, took);
        }
        System.out.printf("%-10s heartbeat tick, %,5d held claims: %7.2f ms mean, %7.2f ms slowest  (%.0f statement per tick)%n",
                vendor, held, total / 1e6 / TICKS, slowest / 1e6, (double) (tx.statements() - statementsBefore) / TICKS);
        claims.releaseAll(owner);
    }
}
