package io.cyclium.store;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.function.Function;

/** {@link Tx} on the container's JTA: every call is a new transaction, committed on return. */
@Stateless
public class JtaTx implements Tx {

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Override
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        T result = work.apply(em);
        em.flush();
        return result;
    }
}
