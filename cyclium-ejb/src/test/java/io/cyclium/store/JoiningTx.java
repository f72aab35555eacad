package io.cyclium.store;

import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A {@link Tx} that behaves like the container's on one thread: inside {@link #inNewTransaction},
 * {@link #inCallerTransaction} joins that transaction and its {@code settled} hears how the
 * transaction ended once it has (JTA's REQUIRED with an interposed synchronization). Outside one,
 * each call is a transaction of its own.
 */
public final class JoiningTx implements Tx {

    private record Open(EntityManager em, List<Consumer<Boolean>> settles) {
    }

    private final Tx delegate;
    private final ThreadLocal<Open> open = new ThreadLocal<>();

    public JoiningTx(Tx delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        Open outer = open.get();
        Open mine = new Open(null, new ArrayList<>());
        boolean committed = false;
        try {
            T result = delegate.inNewTransaction(em -> {
                open.set(new Open(em, mine.settles()));
                return work.apply(em);
            });
            committed = true;
            return result;
        } finally {
            if (outer == null) {
                open.remove();
            } else {
                open.set(outer);
            }
            for (Consumer<Boolean> s : mine.settles()) {
                s.accept(committed);
            }
        }
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work, Consumer<Boolean> settled) {
        Open joined = open.get();
        if (joined == null) {
            return Settling.telling(settled, () -> inNewTransaction(work));
        }
        joined.settles().add(settled);
        return work.apply(joined.em());
    }

    @Override
    public boolean callerHasTransaction() {
        return open.get() != null;
    }
}
