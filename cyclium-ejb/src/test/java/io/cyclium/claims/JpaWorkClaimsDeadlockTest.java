package io.cyclium.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction the database rolled back to break a deadlock (MariaDB does this when a heartbeat
 * tick and a settle or steal meet on one row) is run again; any other failure is not.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class JpaWorkClaimsDeadlockTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    private final List<String> counted = new CopyOnWriteArrayList<>();
    private final Telemetry telemetry = new Telemetry() {
        @Override
        public void count(String name, String... tags) {
            counted.add(name + " " + String.join("=", tags));
        }

        @Override
        public void time(String name, Duration duration, String... tags) {
        }
    };

    /** Fails the next {@code failures} transactions with {@code failure}, then lets them through. */
    static final class FailingTx implements Tx {
        final Tx delegate;
        final AtomicInteger failures = new AtomicInteger();
        RuntimeException failure;

        FailingTx(Tx delegate) {
            this.delegate = delegate;
        }

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            if (failures.getAndDecrement() > 0) {
                throw failure;
            }
            return delegate.inNewTransaction(work);
        }
    }

    static RuntimeException deadlock() {
        return new PersistenceException("EclipseLink-4002", new SQLTransactionRollbackException(
                "Deadlock found when trying to get lock; try restarting transaction", "40001", 1213));
    }

    private String key() {
        return "deadlock:" + UUID.randomUUID();
    }

    @Test
    void a_deadlock_victim_is_run_again_and_counted() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        FailingTx tx = new FailingTx(jpa);
        JpaWorkClaims claims = new JpaWorkClaims(tx, jpa.vendor(), telemetry);
        String key = key();
        assertThat(claims.acquire(key, "node-a", 60, "episode").acquired()).isTrue();
        tx.failure = deadlock();
        tx.failures.set(2);

        assertThat(claims.complete(key, "node-a")).isTrue();

        assertThat(counted).filteredOn(c -> c.startsWith("work_claims_deadlock_retries"))
                .containsExactly("work_claims_deadlock_retries operation=complete",
                        "work_claims_deadlock_retries operation=complete");
        assertThat(claims.find(key).orElseThrow().state()).isEqualTo(ClaimState.DONE);
    }

    @Test
    void a_transaction_that_keeps_deadlocking_fails_after_five_attempts() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        FailingTx tx = new FailingTx(jpa);
        JpaWorkClaims claims = new JpaWorkClaims(tx, jpa.vendor(), telemetry);
        tx.failure = deadlock();
        tx.failures.set(5);

        assertThatThrownBy(() -> claims.renewAll("node-a", 60)).isSameAs(tx.failure);
        assertThat(tx.failures.get()).isZero();
    }

    @Test
    void any_other_failure_is_not_run_again() {
        TestJpa jpa = databases.jpa(Vendor.H2);
        FailingTx tx = new FailingTx(jpa);
        JpaWorkClaims claims = new JpaWorkClaims(tx, jpa.vendor(), telemetry);
        tx.failure = new PersistenceException(new SQLException("Lock wait timeout exceeded", "HY000", 1205));
        tx.failures.set(2);

        assertThatThrownBy(() -> claims.renewAll("node-a", 60)).isSameAs(tx.failure);
        assertThat(tx.failures.get()).isEqualTo(1);
    }
}
