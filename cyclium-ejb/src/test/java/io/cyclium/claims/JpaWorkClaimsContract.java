package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.claims.Acquisition.Acquired;
import io.cyclium.claims.Acquisition.Busy;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.StatementCountingTx;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import io.cyclium.testing.Concurrently;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on a real database, plus what only the SQL implementation promises: one statement
 * per heartbeat tick, and its telemetry (leases on the database clock: {@link SkewedNodeLeaseTest}).
 */
abstract class JpaWorkClaimsContract extends WorkClaimsContract {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    final OutcomeCounts telemetry = new OutcomeCounts();
    StatementCountingTx tx;

    abstract Vendor vendor();

    TestJpa jpa() {
        return databases.jpa(vendor());
    }

    @Override
    WorkClaims newClaims() {
        tx = new StatementCountingTx(jpa());
        return new JpaWorkClaims(tx, jpa().vendor(), telemetry);
    }

    @Override
    void lapse(String key) {
        LeaseLapse.lapse(jpa(), jpa().vendor(), key);
    }

    @Test
    void a_heartbeat_tick_is_one_statement_however_many_claims_are_held() {
        for (int i = 0; i < 25; i++) {
            acquired(key(), nodeA);
        }
        long before = tx.statements();

        assertThat(claims.renewAll(nodeA, LEASE)).isEqualTo(25);

        assertThat(tx.statements() - before).isEqualTo(1);
    }

    @Test
    void a_busy_answer_on_a_live_lease_costs_one_statement_and_writes_nothing() {
        String key = key();
        acquired(key, nodeA);
        long before = tx.statements();

        assertThat(claims.acquire(key, nodeB, LEASE, EPISODE)).isInstanceOf(Busy.class);

        assertThat(tx.statements() - before).isEqualTo(1);
    }

    @Test
    void a_one_second_lease_really_lapses_after_a_second() throws InterruptedException {
        String key = key();
        Acquisition a = claims.acquire(key, nodeA, 1, EPISODE);
        assertThat(a).isInstanceOf(Acquired.class);
        assertThat(claims.acquire(key, nodeB, 1, EPISODE)).isInstanceOf(Busy.class);

        Thread.sleep(1_100);

        assertThat(claims.ownsAtFence(key, nodeA, 1)).isFalse();
        assertThat(claims.acquire(key, nodeB, 1, EPISODE)).isInstanceOfSatisfying(Acquired.class,
                acq -> assertThat(acq.takeover()).isTrue());
    }

    @Test
    void heartbeat_ticks_racing_settles_and_re_claims_of_the_same_rows_never_fail() throws Exception {
        // On MariaDB these meet in InnoDB deadlocks (index entry vs primary key lock order); the
        // victims are run again, so every call still answers.
        List<String> keys = List.of(key(), key(), key(), key());
        AtomicBoolean settling = new AtomicBoolean(true);
        ExecutorService heartbeat = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> ticks = heartbeat.submit(() -> {
                int n = 0;
                while (settling.get()) {
                    claims.renewAll(nodeA, LEASE);
                    n++;
                }
                return n;
            });
            List<Integer> cycles = Concurrently.run(keys.size(), i -> {
                int done = 0;
                for (int c = 0; c < 150; c++) {
                    if (claims.acquire(keys.get(i), nodeA, LEASE, EPISODE).acquired() && claims.complete(keys.get(i), nodeA)) {
                        done++;
                    }
                }
                return done;
            });
            settling.set(false);

            assertThat(cycles).containsOnly(150);
            assertThat(ticks.get(1, TimeUnit.MINUTES)).isPositive();
        } finally {
            settling.set(false);
            heartbeat.shutdownNow();
        }
        System.out.printf("%s: %d deadlock victims run again%n", vendor(), telemetry.deadlockRetries.get());
    }

    @Test
    void every_outcome_is_counted_under_work_claims() {
        String key = key();
        acquired(key, nodeA);
        claims.acquire(key, nodeB, LEASE, EPISODE);
        claims.renew(key, nodeA, LEASE);
        claims.renew(key, nodeB, LEASE);
        lapse(key);
        acquired(key, nodeB);
        claims.complete(key, nodeB);
        String other = key();
        acquired(other, nodeA);
        claims.fail(other, nodeA, "boom");

        assertThat(telemetry.counts).containsAllEntriesOf(Map.of(
                "acquired", 2, "busy", 1, "steal", 1, "renewed", 1, "renew_failed", 1, "completed", 1, "failed", 1));
    }

    /** Counts {@code work_claims} by its outcome tag. */
    static final class OutcomeCounts implements Telemetry {

        final Map<String, Integer> counts = new ConcurrentHashMap<>();
        final AtomicInteger deadlockRetries = new AtomicInteger();

        @Override
        public void count(String name, String... tags) {
            if (name.equals(JpaWorkClaims.METRIC + "_deadlock_retries")) {
                deadlockRetries.incrementAndGet();
            }
            if (JpaWorkClaims.METRIC.equals(name) && tags.length == 2 && "outcome".equals(tags[0])) {
                counts.merge(tags[1], 1, Integer::sum);
            }
        }

        @Override
        public void time(String name, Duration duration, String... tags) {
        }
    }
}
