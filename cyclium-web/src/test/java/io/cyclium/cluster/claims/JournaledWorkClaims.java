package io.cyclium.cluster.claims;

import io.cyclium.claims.Acquisition;
import io.cyclium.claims.ClaimRecord;
import io.cyclium.claims.JpaWorkClaims;
import io.cyclium.claims.WorkClaims;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * A claims adapter an application brings (the {@link WorkClaims} SPI): it keeps the leases in the
 * shipped table but writes every acquire and release (with how many it released) into {@code it_claim_calls} first, so a test
 * sees that the node's work went through it. {@code @Alternative @Priority} is all it takes to
 * replace the shipped adapter.
 */
@ApplicationScoped
@Alternative
@Priority(100)
public class JournaledWorkClaims implements WorkClaims {

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    private volatile WorkClaims leases;

    /** Creates the table this adapter writes to; the test calls it once on the cluster's fresh database. */
    public static void createTable(java.sql.Connection c) throws java.sql.SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE it_claim_calls (operation VARCHAR(40) NOT NULL, owner_node VARCHAR(255) NOT NULL,"
                    + " claim_key VARCHAR(512))");
        }
    }

    private WorkClaims leases() {
        WorkClaims l = leases;
        if (l == null) {
            l = new JpaWorkClaims(tx, vendor, Telemetry.NOOP);
            leases = l;
        }
        return l;
    }

    private void record(String operation, String owner, String key) {
        try {
            tx.run(em -> em.createNativeQuery("INSERT INTO it_claim_calls (operation, owner_node, claim_key) VALUES (?1, ?2, ?3)")
                    .setParameter(1, operation).setParameter(2, owner).setParameter(3, key).executeUpdate());
        } catch (RuntimeException e) {
            // before the test has created the table (a retention run at boot): nothing to record into
            System.out.println("JournaledWorkClaims could not record " + operation + " of " + key + ": " + e);
        }
    }

    @Override
    public Acquisition acquire(String key, String owner, int leaseSeconds, String workType) {
        record("acquire", owner, key);
        return leases().acquire(key, owner, leaseSeconds, workType);
    }

    @Override
    public int releaseAll(String owner) {
        // also called by the drain at SIGTERM (log output is lost that late on Payara Micro: the row is the record)
        int released = leases().releaseAll(owner);
        record("releaseAll:" + released, owner, null);
        return released;
    }

    @Override
    public boolean renew(String key, String owner, int leaseSeconds) {
        return leases().renew(key, owner, leaseSeconds);
    }

    @Override
    public int renewAll(String owner, int leaseSeconds) {
        return leases().renewAll(owner, leaseSeconds);
    }

    @Override
    public List<ClaimRecord> ownedLive(String owner) {
        return leases().ownedLive(owner);
    }

    @Override
    public boolean complete(String key, String owner) {
        return leases().complete(key, owner);
    }

    @Override
    public boolean fail(String key, String owner, String detail) {
        return leases().fail(key, owner, detail);
    }

    @Override
    public List<ClaimRecord> reclaimExpired(int limit) {
        return leases().reclaimExpired(limit);
    }

    @Override
    public boolean ownsAtFence(String key, String owner, long fence) {
        return leases().ownsAtFence(key, owner, fence);
    }

    @Override
    public Optional<ClaimRecord> find(String key) {
        return leases().find(key);
    }
}
