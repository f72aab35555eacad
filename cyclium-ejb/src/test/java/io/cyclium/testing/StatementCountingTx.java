package io.cyclium.testing;

import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A {@link Tx} that counts the statements its work sends: every query the work creates on the
 * EntityManager, and every time it borrows the raw JDBC connection (where UniqueInsert runs one
 * INSERT). Each created query is executed once by the repositories, so this is the number of
 * round trips apart from BEGIN and COMMIT.
 */
public final class StatementCountingTx implements Tx {

    private static final Set<String> QUERY_FACTORIES = Set.of("createNativeQuery", "createQuery",
            "createNamedQuery", "createStoredProcedureQuery", "createNamedStoredProcedureQuery");

    private final Tx delegate;
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();

    public StatementCountingTx(Tx delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        transactions.incrementAndGet();
        return delegate.inNewTransaction(em -> work.apply(counting(em)));
    }

    public long statements() {
        return statements.get();
    }

    public long transactions() {
        return transactions.get();
    }

    private EntityManager counting(EntityManager em) {
        return (EntityManager) Proxy.newProxyInstance(EntityManager.class.getClassLoader(),
                new Class<?>[] {EntityManager.class}, (proxy, method, args) -> {
                    if (QUERY_FACTORIES.contains(method.getName())
                            || ("unwrap".equals(method.getName()) && args[0] == Connection.class)) {
                        statements.incrementAndGet();
                    }
                    try {
                        return method.invoke(em, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
