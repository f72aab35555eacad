package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.Acquisition.Acquired;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three owners with eight threads each (and one heartbeat each) hammer five keys with random
 * acquires, renewals, settlements, fence checks and lapses on short leases, while a checker holds
 * the store to two promises:
 * <ul>
 *   <li>no two holders at once: once a grant at fence f has returned, nobody is told it owns the
 *       key at an older fence (checked after every grant against its predecessor, and on every
 *       fence check that started after a newer grant returned);
 *   <li>fences per key are handed out once each, in order: a grant's fence is above every fence
 *       granted before the acquire began, no fence is granted twice, and at the end the key's
 *       fence equals the number of grants seen (so every generation 1..n was seen exactly once).
 * </ul>
 * {@code -Dcyclium.soak=long} runs 200,000 operations per store instead of 10,000.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkClaimsFuzzTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    static final int OPERATIONS = "long".equals(System.getProperty("cyclium.soak", "short")) ? 200_000 : 10_000;

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void three_owners_hammering_five_keys_never_share_a_lease_nor_reuse_a_fence(Vendor vendor) throws Exception {
        TestJpa jpa = databases.jpa(vendor);
        Map<String, AtomicLong> stats = new ConcurrentHashMap<>();
        WorkClaims claims = new JpaWorkClaims(jpa, jpa.vendor(), new Telemetry() {
            @Override
            public void count(String name, String... tags) {
                if (name.endsWith("_deadlock_retries")) {
                    stats.computeIfAbsent("deadlock_retried_" + tags[1], n -> new AtomicLong()).incrementAndGet();
                }
            }

            @Override
            public void time(String name, java.time.Duration duration, String... tags) {
            }
        });

        Fuzz fuzz = new Fuzz(vendor.name(), claims, key -> LeaseLapse.lapse(jpa, jpa.vendor(), key), stats);
        fuzz.run();

        fuzz.assertHeld();
    }

    @Test
    void the_fake_keeps_the_same_promises_under_the_same_hammering() throws Exception {
        FakeWorkClaims fake = new FakeWorkClaims();

        Fuzz fuzz = new Fuzz("fake", fake, fake::lapse, new ConcurrentHashMap<>());
        fuzz.run();

        fuzz.assertHeld();
    }

    /** One run: the workers, the heartbeats, what they saw and what went wrong. */
    static final class Fuzz {

        static final int OWNERS = 3;
        static final int THREADS_PER_OWNER = 8;
        static final int KEYS = 5;

        final String store;
        final WorkClaims claims;
        final Consumer<String> lapse;
        final List<String> keys = new ArrayList<>();
        final List<String> owners = new ArrayList<>();

        final AtomicInteger budget = new AtomicInteger(OPERATIONS);
        final AtomicLong calls = new AtomicLong();
        /** Outcome → how often; the store's telemetry may add to it too. */
        final Map<String, AtomicLong> stats;
        final Queue<String> violations = new ConcurrentLinkedQueue<>();
        /** The highest fence per key whose acquire has returned. */
        final Map<String, AtomicLong> highestReturned = new ConcurrentHashMap<>();
        /** "key#fence" → the owner it was granted to. */
        final Map<String, String> grants = new ConcurrentHashMap<>();
        long elapsedNanos;

        Fuzz(String store, WorkClaims claims, Consumer<String> lapse, Map<String, AtomicLong> stats) {
            this.store = store;
            this.stats = stats;
            this.claims = claims;
            this.lapse = lapse;
            String run = UUID.randomUUID().toString().substring(0, 8);
            for (int i = 0; i < KEYS; i++) {
                keys.add("fuzz:" + run + ":" + i);
                highestReturned.put(keys.get(i), new AtomicLong());
            }
            for (int i = 0; i < OWNERS; i++) {
                owners.add("fuzz-node-" + i + "-" + run);
            }
        }

        void run() throws Exception {
            int workers = OWNERS * THREADS_PER_OWNER;
            ExecutorService pool = Executors.newFixedThreadPool(workers + OWNERS);
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean working = new AtomicBoolean(true);
            List<Future<?>> futures = new ArrayList<>();
            try {
                for (int t = 0; t < workers; t++) {
                    Worker w = new Worker(owners.get(t % OWNERS), new Random(t * 7919L + System.nanoTime()));
                    futures.add(pool.submit(() -> {
                        start.await();
                        w.run();
                        return null;
                    }));
                }
                List<Future<?>> heartbeats = new ArrayList<>();
                for (String owner : owners) {
                    heartbeats.add(pool.submit(() -> {
                        start.await();
                        while (working.get()) {
                            claims.renewAll(owner, 2);
                            count("heartbeat");
                            Thread.sleep(100);
                        }
                        return null;
                    }));
                }
                long began = System.nanoTime();
                start.countDown();
                for (Future<?> f : futures) {
                    f.get(10, TimeUnit.MINUTES);
                }
                elapsedNanos = System.nanoTime() - began;
                working.set(false);
                for (Future<?> f : heartbeats) {
                    f.get(1, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            double seconds = elapsedNanos / 1e9;
            System.out.printf("work claims fuzz on %s: %,d operations (%,d calls with checks) by %d threads in %.1f s"
                            + " = %,.0f operations/s (%,.0f calls/s); %s%n",
                    store, OPERATIONS, calls.get(), workers, seconds, OPERATIONS / seconds, calls.get() / seconds,
                    new java.util.TreeMap<>(stats));
        }

        void assertHeld() {
            assertThat(violations).as("violations on %s", store).isEmpty();
            for (String key : keys) {
                long granted = grants.keySet().stream().filter(g -> g.startsWith(key + "#")).count();
                ClaimRecord row = claims.find(key).orElseThrow();
                assertThat(row.fence()).as("fence of %s = number of grants seen", key).isEqualTo(granted);
                for (long f = 1; f <= granted; f++) {
                    assertThat(grants).as("grant of %s at fence %d", key, f).containsKey(key + "#" + f);
                }
            }
            assertThat(stat("takeover")).as("leases were stolen").isPositive();
            assertThat(stat("busy")).as("acquires were refused").isPositive();
            assertThat(stat("owns")).as("fence checks succeeded").isPositive();
        }

        long stat(String name) {
            AtomicLong n = stats.get(name);
            return n == null ? 0 : n.get();
        }

        void count(String name) {
            calls.incrementAndGet();
            stats.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
        }

        void violation(String what) {
            violations.add(what);
        }

        /** One thread of one owner; it only renews, settles and checks claims it acquired itself. */
        final class Worker {

            final String owner;
            final Random random;
            final Map<String, Long> held = new HashMap<>();

            Worker(String owner, Random random) {
                this.owner = owner;
                this.random = random;
            }

            void run() {
                while (budget.getAndDecrement() > 0) {
                    int dice = random.nextInt(100);
                    String mine = held.isEmpty() ? null : new ArrayList<>(held.keySet()).get(random.nextInt(held.size()));
                    if (dice < 35 || (mine == null && dice < 95)) {
                        acquire(keys.get(random.nextInt(keys.size())));
                    } else if (dice < 50) {
                        renew(mine);
                    } else if (dice < 58) {
                        settle(mine, true);
                    } else if (dice < 65) {
                        settle(mine, false);
                    } else if (dice < 95) {
                        checkFence(mine, held.get(mine));
                    } else {
                        // a holder pauses (GC, a slow network) past its lease
                        lapse.accept(keys.get(random.nextInt(keys.size())));
                        count("lapse");
                    }
                }
            }

            void acquire(String key) {
                long newestBefore = highestReturned.get(key).get();
                Acquisition a = claims.acquire(key, owner, 1 + random.nextInt(2), "fuzz");
                if (!(a instanceof Acquired acquired)) {
                    count("busy");
                    return;
                }
                count(acquired.takeover() ? "takeover" : "acquired");
                ClaimRecord claim = acquired.claim();
                long fence = claim.fence();
                if (!owner.equals(claim.owner()) || claim.state() != ClaimState.CLAIMED) {
                    violation(owner + " acquired " + key + " but the claim reads " + claim);
                }
                if (fence <= newestBefore) {
                    violation(owner + " was granted " + key + " at fence " + fence + " although fence " + newestBefore
                            + " had been granted before its acquire began");
                }
                String earlier = grants.putIfAbsent(key + "#" + fence, owner);
                if (earlier != null) {
                    violation(key + " was granted at fence " + fence + " twice: to " + earlier + " and to " + owner);
                }
                highestReturned.get(key).accumulateAndGet(fence, Math::max);
                held.put(key, fence);
                String predecessor = grants.get(key + "#" + (fence - 1));
                if (predecessor != null) {
                    boolean stillOwns = claims.ownsAtFence(key, predecessor, fence - 1);
                    count("predecessor_check");
                    if (stillOwns) {
                        violation("two holders of " + key + ": " + predecessor + " still owns fence " + (fence - 1)
                                + " after " + owner + " was granted fence " + fence);
                    }
                }
            }

            void renew(String key) {
                boolean renewed = claims.renew(key, owner, 1 + random.nextInt(2));
                count(renewed ? "renewed" : "renew_failed");
                if (!renewed) {
                    held.remove(key);
                }
            }

            void settle(String key, boolean done) {
                boolean settled = done ? claims.complete(key, owner) : claims.fail(key, owner, "fuzz");
                count(settled ? (done ? "completed" : "failed") : "settle_refused");
                held.remove(key);
            }

            void checkFence(String key, long fence) {
                long newestBefore = highestReturned.get(key).get();
                boolean owns = claims.ownsAtFence(key, owner, fence);
                count(owns ? "owns" : "lost");
                if (owns && newestBefore > fence) {
                    violation(owner + " was told it owns " + key + " at fence " + fence + " although fence "
                            + newestBefore + " had been granted before the check began");
                }
                if (!owns) {
                    held.remove(key);
                }
            }
        }
    }
}
