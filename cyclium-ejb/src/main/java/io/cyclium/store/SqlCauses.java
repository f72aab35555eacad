package io.cyclium.store;

import java.sql.SQLException;
import java.util.function.Predicate;

/** Looks through the wrappers JPA, EJB and drivers put around an SQLException. */
final class SqlCauses {

    private SqlCauses() {
    }

    /** Whether {@code t}, a cause of it, or an exception chained to one of those matches {@code test}. */
    static boolean any(Throwable t, Predicate<SQLException> test) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLException sql) {
                for (SQLException e = sql; e != null; e = e.getNextException()) {
                    if (test.test(e)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
