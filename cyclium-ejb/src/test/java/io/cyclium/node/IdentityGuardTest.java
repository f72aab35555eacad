package io.cyclium.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.config.NodeMode;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node starting under an identity whose row says a process still beats there, against a real
 * database: a live holder (a thread writing the heartbeat's {@code last_seen}) makes it refuse, a
 * holder that died a moment ago (the row simply stops moving) lets it start after one heartbeat.
 */
class IdentityGuardTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private static final Duration HEARTBEAT = Duration.ofMillis(300);

    private final TestJpa db = databases.jpa(Vendor.H2);
    private final NodeStore store = new NodeStore(db.vendor());
    private final String node = "twin-" + UUID.randomUUID().toString().substring(0, 8);
    private final java.util.concurrent.atomic.AtomicInteger naps = new java.util.concurrent.atomic.AtomicInteger();
    private final IdentityGuard guard = new IdentityGuard(node, HEARTBEAT, d -> {
        naps.incrementAndGet();
        Thread.sleep(d.toMillis());
    });

    private void check() {
        guard.check(() -> db.inNewTransaction(em -> store.lastLife(em, node, guard.recentSeconds())));
    }

    private void beat() {
        db.run(em -> em.createNativeQuery("UPDATE cyclium_nodes SET last_seen = " + db.vendor().utcNow()
                + " WHERE node_identity = ?1").setParameter(1, node).executeUpdate());
    }

    @Test
    void a_second_process_under_the_identity_of_a_live_one_refuses_to_start_naming_the_identity_and_the_holder() throws Exception {
        db.run(em -> store.register(em, node, NodeMode.FULL, null, null, "pid 4242, java 17"));
        AtomicBoolean alive = new AtomicBoolean(true);
        Thread holder = new Thread(() -> {
            while (alive.get()) {
                beat();
                try {
                    Thread.sleep(HEARTBEAT.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        holder.start();
        try {
            assertThatThrownBy(this::check).isInstanceOf(IdentityGuard.IdentityInUse.class)
                    .hasMessageContaining("Node identity " + node + " is in use by a live process (pid 4242, java 17)")
                    .hasMessageContaining("CYCLIUM_NODE_IDENTITY");
        } finally {
            alive.set(false);
            holder.join();
        }
    }

    @Test
    void a_restart_right_after_a_crash_waits_one_heartbeat_and_starts() {
        db.run(em -> store.register(em, node, NodeMode.FULL, null, null, "pid 1, java 17")); // seen just now, never stopped

        check();

        assertThat(naps.get()).as("watched the row a while, then started").isPositive();
    }

    @Test
    void a_restart_after_a_clean_stop_or_of_a_new_identity_starts_at_once() {
        check(); // no row at all
        db.run(em -> store.register(em, node, NodeMode.FULL, null, null, "pid 1, java 17"));
        db.run(em -> em.createNativeQuery("UPDATE cyclium_nodes SET stopped_at = last_seen WHERE node_identity = ?1")
                .setParameter(1, node).executeUpdate());

        check();

        assertThat(naps.get()).as("no wait").isZero();
    }
}
