package io.cyclium.store;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Tells a {@link Tx#inCallerTransaction} caller how its own transaction ended. (Not a static
 * method of {@link Tx}: the Tx bean's container would look for it as a business method.)
 */
final class Settling {

    private Settling() {
    }

    /** Runs {@code write}, a transaction of its own, and tells {@code settled} whether it committed. */
    static <T> T telling(Consumer<Boolean> settled, Supplier<T> write) {
        T result;
        try {
            result = write.get();
        } catch (RuntimeException | Error e) {
            settled.accept(false);
            throw e;
        }
        settled.accept(true);
        return result;
    }
}
