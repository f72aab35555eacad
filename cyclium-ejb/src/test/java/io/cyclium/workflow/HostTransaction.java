package io.cyclium.workflow;

import io.cyclium.store.Tx;
import io.cyclium.testing.TestJpa;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A {@link Tx} whose caller may hold a transaction of its own, as host code publishing an event
 * inside its JTA transaction does: between {@link #begin} and {@link #commit}/{@link #rollBack},
 * {@code inCallerTransaction} writes on that open database transaction and its {@code settled}
 * callbacks run when it ends; everything else gets a transaction of its own, as with JTA.
 */
final class HostTransaction implements Tx {

    private final TestJpa db;
    private EntityManager open;
    private final List<Consumer<Boolean>> settles = new ArrayList<>();

    HostTransaction(TestJpa db) {
        this.db = db;
    }

    void begin() {
        open = db.createEntityManager();
        open.getTransaction().begin();
    }

    void commit() {
        open.flush();
        open.getTransaction().commit();
        end(true);
    }

    void rollBack() {
        open.getTransaction().rollback();
        end(false);
    }

    private void end(boolean committed) {
        open.close();
        open = null;
        List<Consumer<Boolean>> now = new ArrayList<>(settles);
        settles.clear();
        now.forEach(s -> s.accept(committed));
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return db.inNewTransaction(work);
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work, Consumer<Boolean> settled) {
        if (open == null) {
            return Tx.super.inCallerTransaction(work, settled);
        }
        T result = work.apply(open);
        settles.add(settled);
        return result;
    }
}
