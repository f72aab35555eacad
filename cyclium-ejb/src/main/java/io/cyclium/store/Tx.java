package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.function.Function;

/**
 * Runs a unit of work in a transaction of its own and commits it before returning. Episode tasks
 * run on managed threads without a transaction; every write they make goes through here, so each
 * journal entry, guard or status change is durable the moment the call returns.
 *
 * <p>In the container this is {@link JtaTx} (REQUIRES_NEW); tests use a resource-local version over
 * a real database, so the repositories are exercised by the same code paths either way.
 */
public interface Tx {

    <T> T inNewTransaction(Function<EntityManager, T> work);

    default void run(java.util.function.Consumer<EntityManager> work) {
        inNewTransaction(em -> {
            work.accept(em);
            return null;
        });
    }
}
