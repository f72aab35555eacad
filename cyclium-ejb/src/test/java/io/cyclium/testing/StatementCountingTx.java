package io.cyclium.testing;

import io.cyclium.store.Tx;
import jakarta.persistence.EntityManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A {@link Tx} that counts the statements its work sends: every query the work creates on the
 * EntityManager, and every statement run on the raw JDBC connection it borrows (UniqueInsert's one
 * INSERT; a group commit's deferred updates, one per batched row). Each created query is executed
 * once by the repositories, so this is the number of statements apart from BEGIN and COMMIT (a
 * JDBC batch sends many in one round trip).
 */
public final class StatementCountingTx implements Tx {

    private static final Set<String> QUERY_FACTORIES = Set.of("createNativeQuery", "createQuery",
            "createNamedQuery", "createStoredProcedureQuery", "createNamedStoredProcedureQuery");

    private static final Set<String> STATEMENT_RUNS = Set.of("executeUpdate", "executeQuery", "execute", "addBatch",
            "executeLargeUpdate");

    private final Tx delegate;
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong batched = new AtomicLong();
    private final java.util.List<String> texts = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.List<String> connectionTexts = new java.util.concurrent.CopyOnWriteArrayList<>();

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

    /** The text of every query created on the EntityManager, in order (statements on the raw connection are not here). */
    public java.util.List<String> texts() {
        return texts;
    }

    /** The text of every statement run on the raw JDBC connection, once per execution or batched row, in order. */
    public java.util.List<String> connectionTexts() {
        return connectionTexts;
    }

    /** Of {@link #statements()}, those added to a JDBC batch. */
    public long batched() {
        return batched.get();
    }

    public long transactions() {
        return transactions.get();
    }

    private EntityManager counting(EntityManager em) {
        return (EntityManager) Proxy.newProxyInstance(EntityManager.class.getClassLoader(),
                new Class<?>[] {EntityManager.class}, (proxy, method, args) -> {
                    if (QUERY_FACTORIES.contains(method.getName())) {
                        statements.incrementAndGet();
                        if (args != null && args.length > 0 && args[0] instanceof String text) {
                            texts.add(text);
                        }
                    }
                    try {
                        if ("unwrap".equals(method.getName()) && args[0] == Connection.class) {
                            Connection c = (Connection) method.invoke(em, args);
                            return c == null ? null : counting(c);
                        }
                        return method.invoke(em, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Counts each statement run on a prepared statement of {@code connection}: executed, or added to a batch. */
    private Connection counting(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (!"prepareStatement".equals(method.getName())) {
                        return result;
                    }
                    PreparedStatement ps = (PreparedStatement) result;
                    String text = args != null && args.length > 0 && args[0] instanceof String t ? t : "?";
                    return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                            new Class<?>[] {PreparedStatement.class}, (p, m, a) -> {
                                if (STATEMENT_RUNS.contains(m.getName()) && (a == null || a.length == 0)) {
                                    statements.incrementAndGet();
                                    connectionTexts.add(text);
                                    if ("addBatch".equals(m.getName())) {
                                        batched.incrementAndGet();
                                    }
                                }
                                return invoke(ps, m, a);
                            });
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
