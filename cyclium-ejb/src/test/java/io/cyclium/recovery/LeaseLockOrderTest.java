package io.cyclium.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.store.GroupCommit;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The drain's statements and a batch of failure settles lock rows in the order the heartbeat and a
 * group commit's batches of finishes do — ascending lease key — so any two of them can only wait
 * for each other one way, never in a cycle (PostgreSQL breaks a cycle only after deadlock_timeout,
 * and then fails one of them). Shown on PostgreSQL: a row early in key order is held elsewhere;
 * while the writer waits for it, a row later in key order (but earlier in the table, by id, or in
 * arrival) must still be free, because the writer has not reached it yet.
 */
class LeaseLockOrderTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final TestDatabase db = databases.get(Vendor.POSTGRESQL);
    private final TestJpa jpa = databases.jpa(Vendor.POSTGRESQL);
    private final String node = "drain-order-" + UUID.randomUUID();
    private final JpaWorkClaims claims = new JpaWorkClaims(jpa, jpa.vendor(), new RecordingTelemetry());
    private final String prefix = "lock-order:" + UUID.randomUUID();
    private final String later = prefix + ":b";
    private final String earlier = prefix + ":a";

    /** Two live leases of the node, the later key first into the table: a scan in table order meets it first. */
    private void twoLeases() {
        jpa.run(em -> claims.claimFirstIn(em, later, node, 60, "episode"));
        jpa.run(em -> claims.claimFirstIn(em, earlier, node, 60, "episode"));
    }

    @Test
    void the_drain_expires_the_nodes_leases_in_key_order() throws Exception {
        twoLeases();

        int released = whileHeld("SELECT 1 FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE", earlier,
                "SELECT 1 FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE NOWAIT", later,
                () -> jpa.inNewTransaction(em -> claims.releaseAll(em, node)));

        assertThat(released).isEqualTo(2);
    }

    @Test
    void the_drain_stamps_the_nodes_episodes_in_the_order_of_their_lease_keys() throws Exception {
        RecoveryRows rows = new RecoveryRows(jpa);
        RecoveryStore store = new RecoveryStore(jpa.vendor());
        String low = UUID.randomUUID().toString();
        String high = UUID.randomUUID().toString();
        if (low.compareTo(high) > 0) {
            String t = low;
            low = high;
            high = t;
        }
        // by id (and in the table) the episode whose lease key comes later is first
        rows.episode().on(node).identified(low, prefix + ":b").insert();
        rows.episode().on(node).identified(high, prefix + ":a").insert();

        int stamped = whileHeld("SELECT 1 FROM cyclium_episodes WHERE id = ? FOR UPDATE", high,
                "SELECT 1 FROM cyclium_episodes WHERE id = ? FOR UPDATE NOWAIT", low,
                () -> jpa.inNewTransaction(em -> store.stampInterrupted(em, node)));

        assertThat(stamped).isEqualTo(2);
    }

    @Test
    void a_batch_of_failure_settles_locks_the_leases_in_key_order_whatever_order_the_failures_came_in() throws Exception {
        twoLeases();
        long fence = claims.find(later).orElseThrow().fence();
        GroupCommit group = GroupCommit.start(jpa, Executors.defaultThreadFactory(), 64, 1, size -> { }, true);
        ExecutorService callers = Executors.newFixedThreadPool(3);
        try {
            // the writer busy with a transaction of its own while both failures queue up, the later key first
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            callers.submit(() -> group.inGroupTransaction(em -> {
                holding.countDown();
                try {
                    return release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }));
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
            java.util.List<Future<java.util.Optional<Boolean>>> settles = new java.util.ArrayList<>();
            for (String key : java.util.List.of(later, earlier)) {
                int before = group.waiting();
                settles.add(callers.submit(() -> group.inGroupTransaction(em -> claims.settleIn(em, key, node, fence, false,
                        "failed in its strategy"))));
                while (group.waiting() == before) {
                    Thread.sleep(5);
                }
            }

            whileHeld("SELECT 1 FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE", earlier,
                    "SELECT 1 FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE NOWAIT", later, () -> {
                        release.countDown(); // the batch of both settles goes now
                        return 0;
                    });

            for (Future<java.util.Optional<Boolean>> settle : settles) {
                assertThat(settle.get(30, TimeUnit.SECONDS)).as("settled as failed").contains(true);
            }
        } finally {
            callers.shutdownNow();
            group.close();
        }
    }

    /**
     * Holds the row {@code hold} names in a transaction of its own, starts {@code drain} (which must
     * wait for it), checks that the row {@code probe} names can still be locked at once, then lets
     * the drain go on and returns its answer.
     */
    private int whileHeld(String hold, String held, String probe, String probed, Supplier<Integer> drain) throws Exception {
        try (Connection holder = db.connect()) {
            holder.setAutoCommit(false);
            lock(holder, hold, held);
            CompletableFuture<Integer> draining = CompletableFuture.supplyAsync(drain);
            Thread.sleep(500); // the writer reaches the held row and waits there
            try (Connection prober = db.connect()) {
                prober.setAutoCommit(false);
                assertThatCode(() -> lock(prober, probe, probed))
                        .as("a row later in key order is not locked by a drain still waiting for an earlier one")
                        .doesNotThrowAnyException();
                prober.rollback();
            }
            holder.rollback();
            return draining.get(30, TimeUnit.SECONDS);
        }
    }

    private static void lock(Connection c, String sql, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            ps.executeQuery().close();
        }
    }
}
