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
    void a_heartbeat_tick_passes_over_a_lease_another_transaction_holds_renews_the_others_at_once_and_never_deadlocks()
            throws Exception {
        // a group commit's batch settles several of the node's leases in one transaction. Waiting
        // for a row the batch held, a tick that had already locked others could deadlock with it
        // (PostgreSQL breaks that after deadlock_timeout, one side rolled back), and while it
        // waited no other lease of the node was renewed. Inserted in the opposite order, so that
        // index or heap order would meet "c" and "b" before "a".
        String prefix = "episode:order-" + UUID.randomUUID() + ":";
        acquired(prefix + "c", nodeA);
        acquired(prefix + "b", nodeA);
        acquired(prefix + "a", nodeA);
        try (Connection batch = jpa().database().connect(); Connection other = jpa().database().connect()) {
            batch.setAutoCommit(false);
            lock(batch, prefix + "a", "");

            CompletableFuture<Integer> tick = CompletableFuture.supplyAsync(() -> claims.renewAll(nodeA, LEASE));
            assertThat(tick.get(20, TimeUnit.SECONDS)).as("renewed at once while the batch holds a: the others").isEqualTo(2);
            assertThat(heartbeats(other, prefix)).as("the leases the tick renewed").containsExactly(prefix + "b", prefix + "c");

            other.setAutoCommit(false);
            lock(other, prefix + "b", " NOWAIT"); // the tick holds nothing any more
            other.rollback();
            lock(batch, prefix + "b", "");
            lock(batch, prefix + "c", "");
            batch.commit();
        }
        assertThat(claims.renewAll(nodeA, LEASE)).as("every lease renewed by the next tick").isEqualTo(3);
        assertThat(telemetry.deadlockRetries.get()).as("heartbeat ticks rolled back by a deadlock").isZero();
    }

    /** The keys under {@code prefix} whose lease a heartbeat renewed, in key order. */
    private static java.util.List<String> heartbeats(Connection c, String prefix) throws Exception {
        java.util.List<String> keys = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT dedupe_key FROM cyclium_work_claims WHERE dedupe_key LIKE ?"
                + " AND last_heartbeat_at IS NOT NULL ORDER BY dedupe_key")) {
            ps.setString(1, prefix + "%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.add(rs.getString(1));
                }
            }
        }
        return keys;
    }

    private static void lock(Connection c, String key, String nowait) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT fence FROM cyclium_work_claims WHERE dedupe_key = ? FOR UPDATE"
                + nowait)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("claim row %s", key).isTrue();
            }
        }
    }
}
