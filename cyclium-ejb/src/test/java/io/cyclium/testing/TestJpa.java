package io.cyclium.testing;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import java.util.Map;
import java.util.function.Function;

/**
 * The product's entities over a {@link TestDatabase}, with a resource-local {@link Tx}: each call
 * is its own transaction on its own EntityManager, committed on return — the same contract the
 * container's JtaTx gives the runtime.
 */
public final class TestJpa implements Tx, AutoCloseable {

    private final TestDatabase db;
    private final EntityManagerFactory emf;

    public TestJpa(TestDatabase db) {
        this(db, db.jdbcUrl());
    }

    /** The database reached at another URL (through a {@link CuttableProxy}, say). */
    public TestJpa(TestDatabase db, String jdbcUrl) {
        this.db = db;
        this.emf = Persistence.createEntityManagerFactory("cyclium-test", Map.of(
                "jakarta.persistence.jdbc.url", jdbcUrl,
                "jakarta.persistence.jdbc.user", db.user(),
                "jakarta.persistence.jdbc.password", db.password(),
                "eclipselink.connection-pool.default.initial", "2",
                "eclipselink.connection-pool.default.max", "40"));
    }

    public DatabaseVendor vendor() {
        return DatabaseVendor.valueOf(db.vendor().name());
    }

    public TestDatabase database() {
        return db;
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        EntityManager em = emf.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            T result = work.apply(em);
            // Same contract as the container: work that caught a failed statement rolls back quietly.
            if (tx.getRollbackOnly()) {
                tx.rollback();
                return result;
            }
            em.flush();
            tx.commit();
            return result;
        } catch (RuntimeException e) {
            if (tx.isActive()) {
                tx.rollback();
            }
            throw e;
        } finally {
            em.close();
        }
    }

    /** An EntityManager of this database for a test that plays a caller's own transaction. */
    public EntityManager createEntityManager() {
        return emf.createEntityManager();
    }

    @Override
    public void close() {
        emf.close();
    }
}
