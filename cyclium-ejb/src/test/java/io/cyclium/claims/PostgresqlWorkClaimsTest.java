package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.testing.TestDatabase.Vendor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PostgresqlWorkClaimsTest extends JpaWorkClaimsContract {

    @Override
    Vendor vendor() {
        return Vendor.POSTGRESQL;
    }

    @Test
    void a_heartbeat_tick_and_a_transaction_settling_several_leases_in_key_order_never_deadlock() throws Exception {
        // a group commit's batch settles several of the node's leases in key order; the tick must
        // lock them in that order too. Inserted in the opposite order, index or heap order would
        // have the tick take "b" first and then wait for "a", which the batch holds while it
        // wants "b": a deadlock PostgreSQL breaks after deadlock_timeout, one side rolled back
        String prefix = "episode:order-" + UUID.randomUUID() + ":";
        acquired(prefix + "c", nodeA);
        acquired(prefix + "b", nodeA);
        acquired(prefix + "a", nodeA);
        try (Connection batch = jpa().database().connect(); Connection watcher = jpa().database().connect()) {
            batch.setAutoCommit(false);
            lock(batch, prefix + "a");
            CompletableFuture<Integer> tick = CompletableFuture.supplyAsync(() -> claims.renewAll(nodeA, LEASE));
            for (int i = 0; !waitingForALock(watcher); i++) {
                assertThat(i).as("polls until the tick waits for the row the batch holds").isLessThan(400);
                Thread.sleep(50);
            }

            lock(batch, prefix + "b"); // the tick holds nothing after "a": this does not wait
            lock(batch, prefix + "c");
            batch.commit();

            assertThat(tick.get(30, TimeUnit.SECONDS)).as("every lease renewed once the batch committed").isEqualTo(3);
        }
        assertThat(telemetry.deadlockRetries.get()).as("heartbeat ticks rolled back by a deadlock").isZero();
    }

    private static void lock(Connection c, String key) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT fence FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("claim row %s", key).isTrue();
            }
        }
    }

    private static boolean waitingForALock(Connection watcher) throws Exception {
        try (PreparedStatement ps = watcher.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND wait_event_type = 'Lock' AND query LIKE '%last_heartbeat_at%'");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }
}
