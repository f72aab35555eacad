package io.cyclium.store;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.util.function.Consumer;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.function.Function;

/** {@link Tx} on the container's JTA: every call is a new transaction, committed on return. */
@Stateless
public class JtaTx implements Tx {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Resource
    TransactionSynchronizationRegistry txRegistry;

    /**
     * REQUIRED: the caller's JTA transaction when it has one, a new one otherwise. {@code settled}
     * runs from the transaction's completion (in the committing thread), so a task started from it
     * finds the rows committed.
     */
    @Override
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public <T> T inCallerTransaction(Function<EntityManager, T> work, Consumer<Boolean> settled) {
        txRegistry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                settled.accept(status == Status.STATUS_COMMITTED);
            }
        });
        T result = work.apply(em);
        if (!txRegistry.getRollbackOnly()) {
            em.flush();
        }
        return result;
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public boolean callerHasTransaction() {
        return txRegistry.getTransactionKey() != null;
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public boolean rollbackOnly(EntityManager em) {
        return txRegistry.getTransactionKey() != null && txRegistry.getRollbackOnly();
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        T result = work.apply(em);
        // A statement the work caught (a unique violation is a normal answer) may have marked the
        // transaction rollback-only; it will roll back on return, and flushing it would only throw.
        if (!txRegistry.getRollbackOnly()) {
            em.flush();
        }
        return result;
    }
}
